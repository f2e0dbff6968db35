/**
 * `tsx bench/src/profile-top.ts <file.cpuprofile> [count]`: the functions with the most self time
 * in a V8 CPU profile (what `node --cpu-prof` writes), as share of the sampled time.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function topFrames(profile: CpuProfile, count: number): { frame: string; selfPercent: number; selfMs: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
    const frame = `${functionName || '(anonymous)'} ${where}`.trim();
    selfUs.set(frame, (selfUs.get(frame) ?? 0) + delta);
    totalUs += delta;
  });
  return [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, us]) => ({ frame, selfPercent: Math.round((us / totalUs) * 1000) / 10, selfMs: Math.round(us / 1000) }));
}

if (require.main === module) {
  const [file, count] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/src/profile-top.ts <file.cpuprofile> [count]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  for (const row of topFrames(profile, Number(count ?? 25))) console.log(`${row.selfPercent.toFixed(1).padStart(5)}%  ${String(row.selfMs).padStart(7)} ms  ${row.frame}`);
}
