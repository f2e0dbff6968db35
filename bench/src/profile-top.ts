/**
 * `tsx bench/src/profile-top.ts <file.cpuprofile> [count] [--by-package]`: the functions (or, with
 * --by-package, the packages / node modules / source folders) with the most self time in a V8 CPU
 * profile (what BENCH_CPU_PROF_DIR or `node --cpu-prof` writes), as share of the busy (non-idle) time.
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

/** Where a frame's code lives: `@scope/pkg` or `pkg` under node_modules, `node:x`, `apps/<svc>/src`, or the frame's name (native). */
function packageOf(functionName: string, url: string): string {
  if (!url) return functionName || '(native)';
  if (url.includes('node_modules/')) {
    const parts = url.split('node_modules/').pop()!.split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url.replace(/.*\/(apps|packages)\//, '$1/').split('/').slice(0, 3).join('/');
}

export function topFrames(profile: CpuProfile, count: number, byPackage = false): { frame: string; selfPercent: number; selfMs: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') return;
    const where = url ? `${relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
    const frame = byPackage ? packageOf(functionName, url) : `${functionName || '(anonymous)'} ${where}`.trim();
    selfUs.set(frame, (selfUs.get(frame) ?? 0) + delta);
    totalUs += delta;
  });
  return [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, us]) => ({ frame, selfPercent: Math.round((us / totalUs) * 1000) / 10, selfMs: Math.round(us / 1000) }));
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const byPackage = args.includes('--by-package');
  const [file, count] = args.filter((a) => a !== '--by-package');
  if (!file) throw new Error('usage: tsx bench/src/profile-top.ts <file.cpuprofile> [count] [--by-package]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  for (const row of topFrames(profile, Number(count ?? 25), byPackage)) console.log(`${row.selfPercent.toFixed(1).padStart(5)}%  ${String(row.selfMs).padStart(7)} ms  ${row.frame}`);
}
