// The deployment files (deploy/): HAProxy accepts deploy/haproxy.cfg (`haproxy -c`) as shipped, as
// bench/scale-out.ts runs it, and with TLS on; the settings the long-lived routes depend on are
// there (timeouts above the 30 s long-poll, a tunnel timeout for WebSockets, health checks on
// /health, no stickiness); and systemd accepts the units (`systemd-analyze verify`).
// Not timed: nothing here starts a server.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HAPROXY_CONFIG,
  checkConfig,
  configWithServers,
  findHaproxy,
  haproxyEnv,
  SECTION,
} from '../../bench/support/haproxy.ts';
import { ROOT } from '../../bench/lib.ts';

const haproxy = findHaproxy();
const skipHaproxy = haproxy ? false : 'haproxy is not installed (Debian: apt-get install haproxy; .ci/run installs it)';
const systemdAnalyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((path) => existsSync(path));
const skipSystemd = systemdAnalyze ? false : 'systemd-analyze is not installed (Debian: package systemd)';
const openssl = ['/usr/bin/openssl', '/bin/openssl'].find((path) => existsSync(path));

const config = readFileSync(HAPROXY_CONFIG, 'utf8');

function withTempDir<T>(run: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-deploy-test-'));
  try {
    return run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seconds of a `timeout <name> <value>` line of the defaults section (HAProxy units: ms by default, s, m, h). */
function timeoutSeconds(name: string): number {
  const match = new RegExp(`^\\s+timeout ${name}\\s+(\\d+)(ms|s|m|h)?\\s*$`, 'm').exec(config);
  assert.ok(match, `deploy/haproxy.cfg sets timeout ${name}`);
  const unit = { ms: 0.001, s: 1, m: 60, h: 3600 }[match[2] ?? 'ms']!;
  return Number(match[1]) * unit;
}

function section(name: string): string {
  const start = config.indexOf(`\n${name}\n`);
  assert.ok(start >= 0, `deploy/haproxy.cfg has a \`${name}\` section`);
  const rest = config.slice(start + name.length + 2);
  const end = rest.split('\n').findIndex((line) => SECTION.test(line));
  return end < 0 ? rest : rest.split('\n').slice(0, end).join('\n');
}

describe('deploy/haproxy.cfg', () => {
  it('haproxy -c accepts it as shipped', { skip: skipHaproxy }, () => {
    const result = checkConfig(haproxy!, HAPROXY_CONFIG);
    assert.equal(result.status, 0, result.output);
    assert.match(result.output, /Configuration file is valid/);
  });

  it(
    'haproxy -c accepts it as the scale-out bench runs it (its own servers, loopback, unprivileged)',
    { skip: skipHaproxy },
    () => {
      withTempDir((dir) => {
        const file = join(dir, 'haproxy.cfg');
        writeFileSync(
          file,
          configWithServers(config, [
            { name: 'p1', address: '127.0.0.1:40001' },
            { name: 'p2', address: '127.0.0.1:40002' },
          ]),
        );
        const result = checkConfig(haproxy!, file, haproxyEnv({ port: 40080, statsPort: 40081 }));
        assert.equal(result.status, 0, result.output);
      });
    },
  );

  it(
    'haproxy -c accepts it with TLS on (CELLGATE_LB_TLS_CERT), and refuses a missing certificate',
    { skip: skipHaproxy || (openssl ? false : 'openssl is not installed') },
    () => {
      withTempDir((dir) => {
        const key = join(dir, 'key.pem');
        const cert = join(dir, 'cert.pem');
        const made = spawnSync(
          openssl!,
          [
            'req',
            '-x509',
            '-newkey',
            'rsa:2048',
            '-nodes',
            '-keyout',
            key,
            '-out',
            cert,
            '-days',
            '1',
            '-subj',
            '/CN=cellgate.test',
          ],
          { encoding: 'utf8', timeout: 30_000 },
        );
        assert.equal(made.status, 0, made.stderr);
        const pem = join(dir, 'cellgate.pem');
        writeFileSync(pem, readFileSync(cert, 'utf8') + readFileSync(key, 'utf8'));
        const ok = checkConfig(haproxy!, HAPROXY_CONFIG, {
          CELLGATE_LB_TLS_CERT: pem,
          CELLGATE_LB_TLS_BIND: '127.0.0.1:40443',
        });
        assert.equal(ok.status, 0, ok.output);
        const missing = checkConfig(haproxy!, HAPROXY_CONFIG, { CELLGATE_LB_TLS_CERT: join(dir, 'absent.pem') });
        assert.notEqual(missing.status, 0, missing.output);
        assert.match(missing.output, /absent\.pem/);
      });
    },
  );

  it('haproxy -c refuses a broken copy (the check can fail)', { skip: skipHaproxy }, () => {
    withTempDir((dir) => {
      const file = join(dir, 'haproxy.cfg');
      writeFileSync(file, config.replace('timeout tunnel 1h', 'timeout tunnel forever'));
      const result = checkConfig(haproxy!, file);
      assert.notEqual(result.status, 0, result.output);
      assert.match(result.output, /tunnel/);
    });
  });

  it('keeps long-polls and WebSockets open: client and server timeouts above the 30 s long-poll, a tunnel timeout', () => {
    assert.ok(timeoutSeconds('server') > 30 + 5, 'timeout server leaves room above a 30 s long-poll');
    assert.ok(timeoutSeconds('client') > 30 + 5, 'timeout client leaves room above a 30 s long-poll and stream pings');
    assert.ok(timeoutSeconds('tunnel') >= 60, 'timeout tunnel outlasts several 30 s stream pings');
    assert.ok(timeoutSeconds('connect') <= 10, 'a dead process is given up quickly');
    // /health gives up on the database after 2 s: a check must wait longer, or loaded processes look dead.
    assert.ok(timeoutSeconds('check') > 2, 'timeout check above the 2 s of /health');
  });

  it('checks /health, balances by least connections, without stickiness, retrying only failed connections', () => {
    const backend = section('backend cellgate');
    assert.match(backend, /^\s+option httpchk\s*$/m);
    assert.match(backend, /^\s+http-check send meth GET uri \/health\b/m);
    assert.match(backend, /^\s+http-check expect status 200\s*$/m);
    assert.match(backend, /^\s+balance leastconn\s*$/m);
    assert.match(backend, /^\s+default-server check\b/m);
    // A dead process (refused connections) leaves rotation at once, not after the checks.
    assert.match(backend, /^\s+default-server .*\bobserve layer4 error-limit \d+ on-error mark-down$/m);
    assert.ok(/^\s+server\s/m.test(backend), 'the backend lists its servers');
    assert.doesNotMatch(config, /^\s+(cookie|stick-table|stick on|stick match|hash-type|balance source)\b/m);
    // retry-on beyond conn-failure would resend requests a process may already have run.
    assert.doesNotMatch(config, /^\s+retry-on\b/m);
    assert.match(config, /^\s+option redispatch\b/m);
    assert.match(section('frontend cellgate'), /deny deny_status 404 if \{ path \/metrics \}/);
  });

  it('configWithServers replaces the server lines and refuses a configuration without them', () => {
    const replaced = configWithServers(config, [{ name: 'only', address: '127.0.0.1:1' }]);
    const servers = replaced.match(/^\s+server\s.*$/gm);
    assert.deepEqual(servers, ['    server only 127.0.0.1:1']);
    assert.throws(() => configWithServers(config.replace(/^\s+server\s.*$/gm, ''), []), /no `server` line/);
    assert.throws(() => configWithServers('global\n', []), /no `backend cellgate`/);
  });
});

describe('deploy/cellgate.service and cellgate@.service', () => {
  for (const [unit, instance] of [
    ['cellgate.service', 'cellgate.service'],
    ['cellgate@.service', 'cellgate@8081.service'],
  ] as const) {
    it(`systemd-analyze verify accepts ${unit} without a warning`, { skip: skipSystemd }, () => {
      withTempDir((dir) => {
        // The installed paths do not exist here: the command and the environment file point at stand-ins.
        const environment = join(dir, 'cellgate.env');
        writeFileSync(environment, 'CELLGATE_LOG_LEVEL=info\n');
        const text = readFileSync(join(ROOT, 'deploy', unit), 'utf8')
          .replace('ExecStart=/opt/cellgate/bin/cellgate serve', 'ExecStart=/bin/true serve')
          .replace('EnvironmentFile=/etc/cellgate/cellgate.env', `EnvironmentFile=${environment}`);
        writeFileSync(join(dir, unit), text);
        const result = spawnSync(systemdAnalyze!, ['verify', join(dir, instance)], {
          encoding: 'utf8',
          timeout: 30_000,
          cwd: dir,
        });
        const output = `${result.stdout}${result.stderr}`.trim();
        assert.equal(result.status, 0, output);
        assert.equal(output, '', 'no warning');
      });
    });
  }

  it('runs `bin/cellgate serve` from an environment file, restarting, with a stop timeout above the 30 s long-poll', () => {
    for (const unit of ['cellgate.service', 'cellgate@.service']) {
      const text = readFileSync(join(ROOT, 'deploy', unit), 'utf8');
      assert.match(text, /^ExecStart=\/opt\/cellgate\/bin\/cellgate serve$/m, unit);
      assert.match(text, /^EnvironmentFile=\/etc\/cellgate\/cellgate\.env$/m, unit);
      assert.match(text, /^Restart=always$/m, unit);
      const stop = /^TimeoutStopSec=(\d+)s$/m.exec(text);
      assert.ok(stop && Number(stop[1]) > 30, `${unit}: TimeoutStopSec leaves a 30 s long-poll time to drain`);
    }
    assert.match(readFileSync(join(ROOT, 'deploy', 'cellgate@.service'), 'utf8'), /^Environment=CELLGATE_PORT=%i$/m);
  });
});
