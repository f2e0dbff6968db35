import { consoleSink, formatServiceLine, isNotableLine, LineBuffer, prefixFor } from './logs';

describe('LineBuffer', () => {
  it('keeps the last N lines', () => {
    const buffer = new LineBuffer(3);
    for (const line of ['a', 'b', 'c', 'd', 'e']) buffer.push(line);
    expect(buffer.snapshot()).toEqual(['c', 'd', 'e']);
    const none = new LineBuffer(0);
    none.push('x');
    expect(none.snapshot()).toEqual([]);
    expect(() => new LineBuffer(-1)).toThrow();
  });
});

describe('isNotableLine', () => {
  const pino = (fields: Record<string, unknown>) => JSON.stringify({ time: 1, pid: 9, msg: 'm', ...fields });

  it('keeps warnings and errors, not the info below them nor a request completed with a 4xx', () => {
    expect(isNotableLine(pino({ level: 40, msg: 'message handler failed; will redeliver' }), 'stdout')).toBe(true);
    expect(isNotableLine(pino({ level: 50 }), 'stdout')).toBe(true);
    expect(isNotableLine(pino({ level: 60 }), 'stderr')).toBe(true);
    expect(isNotableLine(pino({ level: 30 }), 'stdout')).toBe(false);
    expect(isNotableLine(pino({ level: 30 }), 'stderr')).toBe(false);
    expect(isNotableLine(pino({ level: 40, msg: 'request completed', req: { method: 'GET' }, res: { statusCode: 404 } }), 'stdout')).toBe(false);
    expect(isNotableLine(pino({ level: 50, msg: 'request errored', res: { statusCode: 500 } }), 'stdout')).toBe(false);
  });

  it('tells pino lines, which start with their level, apart the same way', () => {
    expect(isNotableLine('{"level":30,"time":1,"msg":"busy"}', 'stdout')).toBe(false);
    expect(isNotableLine('{"level":20}', 'stderr')).toBe(false);
    expect(isNotableLine('{"level":40,"time":1,"msg":"consumer not running; retrying"}', 'stdout')).toBe(true);
    expect(isNotableLine('{"level":50,"time":1,"msg":"request completed","res":{"statusCode":500}}', 'stdout')).toBe(false);
  });

  it('keeps what is not pino JSON only from stderr', () => {
    expect(isNotableLine('    at Object.<anonymous> (/app/main.js:1:1)', 'stderr')).toBe(true);
    expect(isNotableLine('{ not json', 'stderr')).toBe(true);
    expect(isNotableLine('listening on 4001', 'stdout')).toBe(false);
    expect(isNotableLine('{"level":"warn"}', 'stdout')).toBe(false);
  });
});

describe('formatServiceLine', () => {
  it('renders a pino line as level, message and fields', () => {
    const line = JSON.stringify({ level: 30, time: 1, pid: 9, hostname: 'h', name: 'checkout', msg: 'checkout listening', url: 'http://127.0.0.1:4001' });
    expect(formatServiceLine(line)).toBe('INFO  checkout listening url=http://127.0.0.1:4001');
  });

  it('summarises pino-http request lines and errors', () => {
    const line = JSON.stringify({
      level: 40,
      msg: 'request completed',
      req: { id: 'r1', method: 'GET', url: '/api/v1/account/addresses', headers: {} },
      res: { statusCode: 401, headers: {} },
      responseTime: 2.4,
      reqId: 'r1',
    });
    expect(formatServiceLine(line)).toBe('WARN  request completed GET /api/v1/account/addresses → 401 (2 ms)');
    const failure = JSON.stringify({ level: 50, msg: 'boom', err: { type: 'Error', message: 'bad', stack: 'Error: bad\n    at x' } });
    expect(formatServiceLine(failure)).toBe('ERROR boom error: bad \nError: bad\n    at x');
  });

  it('passes other lines through', () => {
    expect(formatServiceLine('plain text')).toBe('plain text');
    expect(formatServiceLine('{not json')).toBe('{not json');
    expect(formatServiceLine('{"a":1}')).toBe('{"a":1}');
  });
});

describe('consoleSink', () => {
  it('prefixes every printed line with the source', () => {
    const out: string[] = [];
    const sink = consoleSink({ color: false, write: (t) => out.push(t) });
    sink({ source: 'gateway', line: JSON.stringify({ level: 50, msg: 'x', err: { message: 'm', stack: 's1\ns2' } }), stream: 'stdout' });
    expect(out.join('')).toBe('[gateway]  ERROR x error: m \n[gateway]  s1\n[gateway]  s2\n');
  });

  it('colors the prefix only when asked', () => {
    expect(prefixFor('b2b', false)).toBe('[b2b]     ');
    expect(prefixFor('b2b', true)).toBe('\u001b[35m[b2b]     \u001b[0m');
  });
});
