/** Where the stack's output goes: one call per line a service (or the launcher itself) printed. */
export interface LogEntry {
  /** A service name, or `stack`, `postgres`, `nats` for the launcher and what it started. */
  source: string;
  line: string;
  stream: 'stdout' | 'stderr';
}
export type LogSink = (entry: LogEntry) => void;

/** Drops everything (tests); the last lines are still kept per service for error reports. */
export const silentSink: LogSink = () => undefined;

/** Keeps the last `capacity` lines. */
export class LineBuffer {
  private readonly lines: string[] = [];

  constructor(readonly capacity = 200) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new Error(`bad line buffer capacity ${capacity}`);
  }

  push(line: string): void {
    if (this.capacity === 0) return;
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  snapshot(): string[] {
    return [...this.lines];
  }
}

const COLORS: Record<string, number> = {
  gateway: 36, // cyan
  checkout: 32, // green
  b2b: 35, // magenta
  vendor: 33, // yellow
  admin: 34, // blue
  notifier: 95, // bright magenta
  postgres: 90,
  nats: 90,
  stack: 1, // bold
};

export function colorize(text: string, code: number, enabled: boolean): string {
  return enabled ? `\u001b[${code}m${text}\u001b[0m` : text;
}

/** `[gateway] ` padded so the messages line up, colored per source when enabled. */
export function prefixFor(source: string, color: boolean, width = 10): string {
  const label = `[${source}]`.padEnd(width);
  // a second instance (`checkout-2`) has its service's color
  return colorize(label, COLORS[source] ?? COLORS[source.replace(/-\d+$/, '')] ?? 37, color);
}

/** pino's warn level, and a pino line's level where pino writes it: first. */
const WARN = 40;
const PINO_LEVEL = /^\{"level":(\d+)[,}]/;

/**
 * Whether a service's output line is worth keeping for a failure report however long ago it was
 * printed: a pino line at warn or above that is not a request's completion (a 4xx answer logs at
 * warn, and tests ask for many), or anything on stderr that is not pino JSON (a crash's stack, a
 * node warning). A consumer that keeps failing or a relay that cannot publish says so this way.
 */
export function isNotableLine(line: string, stream: 'stdout' | 'stderr'): boolean {
  // pino writes the level first: most lines (info) are told apart without parsing them
  const level = PINO_LEVEL.exec(line);
  if (level && Number(level[1]) < WARN) return false;
  const record = pinoRecordOf(line);
  if (!record) return stream === 'stderr';
  return record.level >= WARN && !isRecord(record.res);
}

/** A service's output line as the pino record it is, or undefined when it is not one. */
function pinoRecordOf(line: string): (Record<string, unknown> & { level: number }) | undefined {
  if (!line.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isRecord(parsed) && typeof parsed.level === 'number' ? (parsed as Record<string, unknown> & { level: number }) : undefined;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_COLORS: Record<string, number> = { WARN: 33, ERROR: 31, FATAL: 31 };
/** pino's own fields and the ones rendered specially below. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'name', 'service', 'req', 'res', 'responseTime', 'err', 'reqId', 'v']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * One readable line from a service's pino JSON line: `INFO  message GET /x → 200 (3 ms) key=value`.
 * Lines that are not pino JSON are returned as they are.
 */
export function formatServiceLine(line: string, color = false): string {
  const parsed = pinoRecordOf(line);
  if (!parsed) return line;
  const level = LEVELS[parsed.level] ?? String(parsed.level);
  const parts: string[] = [colorize(level.padEnd(5), LEVEL_COLORS[level] ?? 2, color)];
  if (typeof parsed.msg === 'string' && parsed.msg) parts.push(parsed.msg);
  const req = parsed.req;
  const res = parsed.res;
  if (isRecord(req) && typeof req.method === 'string') {
    const status = isRecord(res) && typeof res.statusCode === 'number' ? ` → ${res.statusCode}` : '';
    const time = typeof parsed.responseTime === 'number' ? ` (${Math.round(parsed.responseTime)} ms)` : '';
    parts.push(`${req.method} ${text(req.url)}${status}${time}`);
  }
  const err = parsed.err;
  if (isRecord(err)) {
    parts.push(`error: ${text(err.message ?? err.type)}`);
    if (typeof err.stack === 'string') parts.push(`\n${err.stack}`);
  } else if (err !== undefined) {
    parts.push(`error: ${text(err)}`);
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (HIDDEN.has(key) || value === undefined) continue;
    parts.push(`${key}=${text(value)}`);
  }
  return parts.join(' ');
}

/** Prints every line to the console as `[service] INFO message ...`. */
export function consoleSink(options: { color: boolean; write?: (text: string) => void }): LogSink {
  const write = options.write ?? ((t: string) => process.stdout.write(t));
  return ({ source, line }) => {
    const prefix = prefixFor(source, options.color);
    const body = formatServiceLine(line, options.color);
    write(
      body
        .split('\n')
        .map((part) => `${prefix} ${part}`)
        .join('\n') + '\n',
    );
  };
}
