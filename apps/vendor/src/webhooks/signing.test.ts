import { Webhook } from 'standardwebhooks';
import { newSecret } from './rules';
import { signatureHeader } from './signing';

describe('signatureHeader (node HMAC) against the standardwebhooks library', () => {
  const at = new Date('2026-12-01T10:20:30.456Z');
  const bodies = ['{"type":"ping","timestamp":"2026-12-01T10:20:30.456Z","data":{}}', '{"name":"Kedai Ümit ☕","note":"multi-byte: 日本"}', ''];

  test.each(bodies)('one secret: the same header as Webhook.sign (%#)', (body) => {
    const secret = newSecret();
    expect(signatureHeader([secret], 'msg_0123456789abcdef0123456789abcdef', at, body)).toBe(new Webhook(secret).sign('msg_0123456789abcdef0123456789abcdef', at, body));
  });

  test('two secrets (rotation overlap): both signatures, in order, each verifying with the library', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const body = '{"type":"sub_order.paid"}';
    const header = signatureHeader([current, previous], 'msg_1', at, body);
    expect(header).toBe(`${new Webhook(current).sign('msg_1', at, body)} ${new Webhook(previous).sign('msg_1', at, body)}`);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': header };
    jest.useFakeTimers({ now: at, doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval'] });
    try {
      expect(new Webhook(previous).verify(body, headers)).toEqual({ type: 'sub_order.paid' });
      expect(new Webhook(current).verify(body, headers)).toEqual({ type: 'sub_order.paid' });
      // a changed body or another secret does not verify
      expect(() => new Webhook(current).verify('{"type":"sub_order.cancelled"}', headers)).toThrow();
      expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    } finally {
      jest.useRealTimers();
    }
  });
});
