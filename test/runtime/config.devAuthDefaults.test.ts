// Which authorization servers agent auth may reach, by command (issue 68): `dev` allows this
// machine's (plain http, loopback: a local OAuth server, the usual way to try it) unless the
// settings say otherwise; `serve` keeps the strict defaults; the start banner says which applies
// and where the token key comes from.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, withDevAuthDefaults } from '../../src/runtime/config.ts';
import { startBanner } from '../../src/cli/startBanner.ts';

const configOf = (env: Record<string, string> = {}) => loadConfig(['--memory'], { ...env }, process.cwd());

describe('agent auth settings by command', () => {
  it('serve is strict: https and public addresses only', () => {
    const config = configOf();
    assert.equal(config.agentAuth.allowHttp, false);
    assert.deepEqual(config.agentAuth.allowedNetworks, []);
    const banner = startBanner(config, 'http://127.0.0.1:8123', 'serve', { origin: 'created on this start', file: '/data/token-key' });
    assert.match(banner, /agent auth token key \/data\/token-key \(made on this start\)/);
    assert.match(banner, /authorization servers: https and public addresses only \(strict; `dev` allows this machine's/);
  });

  it("dev allows this machine's authorization servers, and says so", () => {
    const config = withDevAuthDefaults(configOf());
    assert.equal(config.agentAuth.allowHttp, true);
    assert.deepEqual(config.agentAuth.allowedNetworks, ['127.0.0.0/8', '::1/128']);
    const banner = startBanner(config, 'http://127.0.0.1:8123', 'dev', { origin: 'AGENTPLANE_TOKEN_KEY' });
    assert.match(banner, /authorization servers: plain http allowed; private addresses allowed: 127\.0\.0\.0\/8, ::1\/128 \(dev\)/);
  });

  it('dev keeps what the operator set', () => {
    const config = withDevAuthDefaults(configOf({ AGENTPLANE_AUTH_ALLOW_HTTP: '0', AGENTPLANE_AUTH_ALLOWED_NETWORKS: '10.0.0.0/8' }));
    assert.equal(config.agentAuth.allowHttp, false);
    assert.deepEqual(config.agentAuth.allowedNetworks, ['10.0.0.0/8']);
  });

  it('the banner says when there is no token key and what to set', () => {
    const banner = startBanner(configOf(), 'http://127.0.0.1:8123', 'serve', { origin: 'none' });
    assert.match(banner, /token key none: set AGENTPLANE_TOKEN_KEY \(authenticate answers 501 until then\)/);
  });
});
