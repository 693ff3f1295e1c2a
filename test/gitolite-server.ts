// A second real transport for the authority tests: gitolite3 behind OpenSSH on 127.0.0.1, the
// way a self-hosted team runs it (issue 39). sshd runs on a free port with its own config; each
// identity is a key whose forced command is gitolite-shell <identity> (gitolite then gives the
// hooks GL_USER, which the gate reads); the repositories get templates/server/pre-receive and
// post-receive. Needs /usr/bin/gitolite and /usr/sbin/sshd (.ci/run installs them).
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { CLI, PKG_ROOT } from './helpers.js';

export const GITOLITE = '/usr/bin/gitolite';
export const SSHD = '/usr/sbin/sshd';

/** Whether this machine can run the gitolite transport. */
export function gitoliteAvailable(): boolean {
  return existsSync(GITOLITE) && existsSync(SSHD);
}

export interface GitoliteServer {
  /** `ssh://<who>/<name>`: the identity is the ssh host alias, which picks its key. */
  url(who: string, name: string): string;
  /** The bare repository `name` on the server. */
  repo(name: string): string;
  /** What git needs to reach the server (GIT_SSH_COMMAND with this server's ssh config). */
  env: Record<string, string>;
  stop(): void;
}

function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** gitolite at `root` with `users` (each a key) and read-write repositories `repos` for all. */
export async function startGitolite(root: string, users: string[], repos: string[]): Promise<GitoliteServer> {
  const home = join(root, 'gitolite-home');
  mkdirSync(home, { recursive: true });
  const genv = { ...process.env, HOME: home };
  const key = (name: string) => join(root, `key-${name}`);
  for (const u of ['admin', ...users]) sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', u, '-f', key(u)]);
  sh(GITOLITE, ['setup', '-pk', `${key('admin')}.pub`], genv);
  for (const u of users) copyFileSync(`${key(u)}.pub`, join(home, '.gitolite', 'keydir', `${u}.pub`));
  writeFileSync(join(home, '.gitolite', 'conf', 'gitolite.conf'), `repo gitolite-admin\n    RW+ = admin\n${repos.map((r) => `repo ${r}\n    RW+ = @all\n`).join('')}`);
  sh(GITOLITE, ['compile'], genv);
  sh(GITOLITE, ['setup'], genv);
  sh(GITOLITE, ['trigger', 'POST_COMPILE'], genv);
  // The forced commands run in sshd's session: give them gitolite's home and intent.
  const keys = join(home, '.ssh', 'authorized_keys');
  const session = `HOME=${home} PATH=${process.env.PATH} INTENT_BIN='${process.execPath} ${CLI}'`;
  writeFileSync(keys, readFileSync(keys, 'utf8').replaceAll('command="/usr/share/gitolite3/gitolite-shell ', `command="${session} /usr/share/gitolite3/gitolite-shell `));
  for (const r of repos) {
    // gitolite creates its repositories on git's default branch; the team's is main.
    sh('git', ['-C', join(home, 'repositories', `${r}.git`), 'symbolic-ref', 'HEAD', 'refs/heads/main']);
    for (const hook of ['pre-receive', 'post-receive']) {
      const to = join(home, 'repositories', `${r}.git`, 'hooks', hook);
      copyFileSync(join(PKG_ROOT, 'templates', 'server', hook), to);
      chmodSync(to, 0o755);
    }
  }
  const port = await freePort();
  sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(root, 'host-key')]);
  mkdirSync('/run/sshd', { recursive: true });
  const sshdConfig = join(root, 'sshd_config');
  writeFileSync(sshdConfig, [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(root, 'host-key')}`, `AuthorizedKeysFile ${keys}`,
    `PidFile ${join(root, 'sshd.pid')}`, 'StrictModes no', 'UsePAM no', 'PasswordAuthentication no', 'PermitRootLogin prohibit-password',
  ].join('\n') + '\n');
  sh(SSHD, ['-f', sshdConfig, '-E', join(root, 'sshd.log')]);
  const user = userInfo().username;
  const sshConfig = join(root, 'ssh_config');
  writeFileSync(sshConfig, users.map((u) => [
    `Host ${u}`, '  HostName 127.0.0.1', `  Port ${port}`, `  User ${user}`, `  IdentityFile ${key(u)}`, '  IdentitiesOnly yes',
    '  StrictHostKeyChecking no', '  UserKnownHostsFile /dev/null', '  LogLevel ERROR',
  ].join('\n')).join('\n') + '\n');
  const env = { GIT_SSH_COMMAND: `ssh -F ${sshConfig}` };
  const stop = () => {
    const pid = join(root, 'sshd.pid');
    if (existsSync(pid)) spawnSync('kill', [readFileSync(pid, 'utf8').trim()]);
  };
  // sshd forks into the background: wait until it answers (5 s at most), and stop it if it never does.
  for (let i = 0; i < 50; i++) {
    const r = spawnSync('ssh', ['-F', sshConfig, users[0], 'info'], { encoding: 'utf8', timeout: 10_000 });
    if (r.status === 0) break;
    if (i === 49) {
      stop();
      throw new Error(`gitolite over ssh did not answer: ${r.stderr}\n${existsSync(join(root, 'sshd.log')) ? readFileSync(join(root, 'sshd.log'), 'utf8') : ''}`);
    }
    spawnSync('sleep', ['0.1']);
  }
  return { url: (who, name) => `ssh://${who}/${name}`, repo: (name) => join(home, 'repositories', `${name}.git`), env, stop };
}
