import { gitRaw } from '../git/process.js';
import { verify, type Finding } from '../trace/verify.js';

const ZERO = /^0+$/;

/**
 * The pre-push check: `intent verify` on what each pushed ref adds to the remote (from the remote's
 * old tip, or, for a new ref, everything the remote's tracking refs do not have). Returns the
 * findings; deletions and notes refs are skipped.
 */
export function checkPush(cwd: string, remote: string, stdin: string): { ranges: string[][]; findings: Finding[] } {
  const ranges: string[][] = [];
  for (const line of stdin.split('\n')) {
    const [localRef, localSha, remoteRef, remoteSha] = line.trim().split(' ');
    if (!localRef || !localSha || ZERO.test(localSha) || remoteRef?.startsWith('refs/notes/')) continue;
    ranges.push(remoteSha && !ZERO.test(remoteSha) && known(cwd, remoteSha) ? [`${remoteSha}..${localSha}`] : [localSha, '--not', `--remotes=${remote}`]);
  }
  const findings: Finding[] = [];
  for (const r of ranges) {
    for (const f of verify(cwd, r, { ledger: false }).findings) {
      if (!findings.some((x) => x.commit === f.commit && x.code === f.code && x.path === f.path)) findings.push(f);
    }
  }
  return { ranges, findings };
}

function known(cwd: string, sha: string): boolean {
  return gitRaw(['cat-file', '-e', `${sha}^{commit}`], { cwd }).status === 0;
}
