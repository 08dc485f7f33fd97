// A deployment's database password, for the PostgreSQL the Kubernetes target renders beside
// its server: made once, kept in a file of the control plane's data that only it reads, the
// same for every revision (a new one would lock the server out of its own database).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The password kept in `deploymentDir`, made there on first use. */
export function databasePassword(deploymentDir: string): string {
  const file = path.join(deploymentDir, 'database-password');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    const password = crypto.randomBytes(24).toString('hex');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, password, { mode: 0o600 });
    return password;
  }
}
