import { defineEvent } from '@pasar/contracts';
import { z } from 'zod';
import { enqueueEvent, type OutboxTx } from './outbox';

/** An outbox that keeps the rows enqueueEvent writes. */
function collector(): { tx: OutboxTx; payloads: unknown[] } {
  const payloads: unknown[] = [];
  return { tx: { outbox: { createMany: async ({ data }) => void payloads.push(...data.map((row) => row.payload)) } }, payloads };
}

const schema = z.object({ n: z.number().int() });

describe('enqueueEvent and a contract`s fast path (accepts)', () => {
  it('skips the parse only when accepts answers true', async () => {
    const parse = jest.spyOn(schema, 'parse');
    const contract = defineEvent('test.fast_path', schema, { accepts: (data) => (data as { n: number }).n === 1 });
    const { tx, payloads } = collector();
    await enqueueEvent(tx, contract, { n: 1 }, { source: 'test' });
    expect(parse).not.toHaveBeenCalled();
    await enqueueEvent(tx, contract, { n: 2 }, { source: 'test' });
    expect(parse).toHaveBeenCalledTimes(1);
    expect(payloads.map((p) => (p as { data: unknown }).data)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('still refuses invalid data through the parse when accepts answers false', async () => {
    const contract = defineEvent('test.fast_path', schema, { accepts: () => false });
    const { tx, payloads } = collector();
    await expect(enqueueEvent(tx, contract, { n: 1.5 }, { source: 'test' })).rejects.toThrow(z.ZodError);
    await enqueueEvent(tx, contract, { n: 3, extra: 'x' } as { n: number }, { source: 'test' });
    expect(payloads.map((p) => (p as { data: unknown }).data)).toEqual([{ n: 3 }]);
  });
});
