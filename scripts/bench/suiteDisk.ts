// What one walk of the test runner costs the disk: `npx tsx scripts/bench/suiteDisk.ts [runner
// args…]` (e.g. `--release`, or test files) runs scripts/run-tests.ts under a fresh TMPDIR of its
// own (/tmp/suite-disk-*), samples that folder's size every 5 s (the peak: what the walk needs
// free), and prints beside it what is left there once the walk ended (what it leaked), the
// disk's used space before and after and podman's images before and after. `--tree=<dir>` runs
// another checkout's runner the same way (a baseline: the same walk before a change). Run it
// at a low priority (`nice -n 10`); other work on the machine moves the df figures, not the
// TMPDIR ones.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';

const args = process.argv.slice(2);
const tree = path.resolve(args.find((a) => a.startsWith('--tree='))?.slice('--tree='.length) ?? '.');
const runnerArgs = args.filter((a) => !a.startsWith('--tree='));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suite-disk-'));
// open as /tmp is: the Dockerfile's steps run as nobody in folders the tests make there
fs.chmodSync(tmp, 0o1777);

const usedBytes = () => {
  const { blocks, bfree, bsize } = fs.statfsSync(tmp);
  return (blocks - bfree) * bsize;
};
const bytesBelow = (at: string): number => {
  try {
    const stat = fs.lstatSync(at);
    return stat.isDirectory() ? fs.readdirSync(at).reduce((sum, name) => sum + bytesBelow(path.join(at, name)), 0) : stat.size;
  } catch {
    return 0; // removed while it was read
  }
};
const podmanImages = (): string[] => {
  try {
    return execFileSync('podman', ['images', '--all', '--format', '{{.Repository}}:{{.Tag}} {{.Size}}'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

const imagesBefore = podmanImages();
const usedBefore = usedBytes();
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, bytesBelow(tmp))), 5000);
const started = Date.now();
const child = spawn(process.execPath, [path.join(tree, 'node_modules/tsx/dist/cli.mjs'), 'scripts/run-tests.ts', ...runnerArgs], {
  cwd: tree,
  env: { ...process.env, TMPDIR: tmp },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
clearInterval(sampler);
// tsx's cache aside: the machine's, kept between runs
const leftNames = fs.readdirSync(tmp).filter((name) => !name.startsWith('tsx-'));
const left = leftNames.reduce((sum, name) => sum + bytesBelow(path.join(tmp, name)), 0);
const imagesAfter = podmanImages();
const counts = (lines: string[]) => ({ tests: /^ℹ tests (\d+)$/m.exec(lines.join('\n'))?.[1], fail: /^ℹ fail (\d+)$/m.exec(lines.join('\n'))?.[1] });
const { tests, fail } = counts(output.split('\n'));
const byPrefix = new Map<string, number>();
for (const name of leftNames) byPrefix.set(name.replace(/[-_][A-Za-z0-9]{6}$/, ''), (byPrefix.get(name.replace(/[-_][A-Za-z0-9]{6}$/, '')) ?? 0) + 1);
console.log(
  [
    `tree ${tree}, runner ${runnerArgs.join(' ') || '(npm test’s files)'}: exit ${code}, ${tests} tests (${fail} failed) in ${((Date.now() - started) / 1000).toFixed(0)} s, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
    `TMPDIR peak ${mb(peak)} (sampled every 5 s), left after the walk ${mb(left)} in ${leftNames.length} entries${byPrefix.size ? `: ${[...byPrefix].map(([p, n]) => `${p} ×${n}`).join(', ')}` : ''}`,
    `disk used ${mb(usedBefore)} before, ${mb(usedBytes())} after (the whole machine's)`,
    `podman images ${imagesBefore.length} before, ${imagesAfter.length} after; new: ${imagesAfter.filter((i) => !imagesBefore.includes(i)).join(', ') || 'none'}`,
  ].join('\n'),
);
if (process.env.SUITE_DISK_OUTPUT) fs.writeFileSync(process.env.SUITE_DISK_OUTPUT, output);
fs.rmSync(tmp, { recursive: true, force: true });
