import { MAX_FAMILY_CART_QUANTITY, MAX_FAMILY_MEMBERS } from '@pasar/contracts';
import { Prisma } from '../generated/prisma/client';
import {
  FAMILY_INVITE_WINDOW_MS,
  inviteAllowance,
  familyAddress,
  hasRoomForMember,
  inviteEmailVars,
  lineTotal,
  mayRemoveMember,
  mayUseCart,
  mergedQuantity,
  ownerFirst,
  setupUrl,
  subtotal,
} from './rules';

const d = (value: string) => new Prisma.Decimal(value);

describe('hasRoomForMember', () => {
  test(`a family takes members while it has fewer than ${MAX_FAMILY_MEMBERS}`, () => {
    expect(hasRoomForMember(1)).toBe(true);
    expect(hasRoomForMember(MAX_FAMILY_MEMBERS - 1)).toBe(true);
    expect(hasRoomForMember(MAX_FAMILY_MEMBERS)).toBe(false);
    expect(hasRoomForMember(3, 3)).toBe(false);
  });
});

describe('mayUseCart', () => {
  test('only an active membership opens the cart', () => {
    expect(mayUseCart('active')).toBe(true);
    expect(mayUseCart('pending')).toBe(false);
    expect(mayUseCart('inactive')).toBe(false);
  });
});

describe('mayRemoveMember', () => {
  test('never the owner', () => {
    expect(mayRemoveMember('owner', { userId: 'owner' })).toBe(false);
    expect(mayRemoveMember('owner', { userId: 'someone' })).toBe(true);
  });
});

describe('ownerFirst', () => {
  test('puts the owner first and keeps the others in their order', () => {
    const members = [{ userId: 'b' }, { userId: 'owner' }, { userId: 'a' }];
    expect(ownerFirst(members, 'owner').map((m) => m.userId)).toEqual(['owner', 'b', 'a']);
    expect(ownerFirst(members, 'nobody').map((m) => m.userId)).toEqual(['b', 'owner', 'a']);
  });
});

describe('mergedQuantity', () => {
  test(`adds up to ${MAX_FAMILY_CART_QUANTITY} and refuses past it`, () => {
    expect(mergedQuantity(2, 3)).toBe(5);
    expect(mergedQuantity(MAX_FAMILY_CART_QUANTITY - 1, 1)).toBe(MAX_FAMILY_CART_QUANTITY);
    expect(mergedQuantity(MAX_FAMILY_CART_QUANTITY, 1)).toBeNull();
  });
});

describe('prices', () => {
  test('line totals and the subtotal are exact decimals (no float drift)', () => {
    expect(lineTotal(d('0.10'), 3).toFixed(2)).toBe('0.30');
    expect(lineTotal(d('7.33'), 3).toFixed(2)).toBe('21.99');
    expect(subtotal([d('0.10'), d('0.20')]).toFixed(2)).toBe('0.30');
    expect(subtotal([]).toFixed(2)).toBe('0.00');
  });
});

describe('inviteEmailVars', () => {
  const invite = { fullName: 'Mei', email: 'mei@example.test', inviterName: 'Aminah', familyName: 'Keluarga', setupUrl: 'http://app.test/account/setup' };

  test('carries the temporary password of an account created for the invite', () => {
    expect(inviteEmailVars({ ...invite, temporaryPassword: 'Abcdefgh12345678' })).toEqual({
      fullName: 'Mei',
      inviterName: 'Aminah',
      groupName: 'Keluarga',
      email: 'mei@example.test',
      temporaryPassword: 'Abcdefgh12345678',
      setupUrl: 'http://app.test/account/setup',
    });
  });

  test('an existing account gets no password, only the note to use their own', () => {
    expect(inviteEmailVars({ ...invite, temporaryPassword: null }).temporaryPassword).toBeNull();
  });
});

describe('setupUrl', () => {
  test('is the account-setup path of the app URL', () => {
    expect(setupUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/account/setup');
    expect(setupUrl('https://pasar.example/')).toBe('https://pasar.example/account/setup');
  });
});

describe('familyAddress', () => {
  const family = {
    id: 'f',
    ownerId: 'o',
    name: 'Family',
    fullName: 'Aminah',
    phone: '+60123',
    addressLine1: '12 Jalan Ampang',
    addressLine2: null,
    city: 'Kuala Lumpur',
    postcode: '50450',
    state: 'WP',
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };

  test('is the address once every required field is set (addressLine2 optional)', () => {
    expect(familyAddress(family)).toEqual({ fullName: 'Aminah', phone: '+60123', addressLine1: '12 Jalan Ampang', addressLine2: null, city: 'Kuala Lumpur', postcode: '50450', state: 'WP' });
  });

  test.each(['fullName', 'phone', 'addressLine1', 'city', 'postcode', 'state'])('is null while %s is unset', (field) => {
    expect(familyAddress({ ...family, [field]: null })).toBeNull();
  });
});

describe('inviteAllowance', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  test('allows while fewer invites than the limit were sent in the window', () => {
    expect(inviteAllowance({ count: 0, oldest: null }, 3, now)).toEqual({ ok: true });
    expect(inviteAllowance({ count: 2, oldest: new Date(now.getTime() - 1000) }, 3, now)).toEqual({ ok: true });
  });
  test('refuses at the limit, retrying when the oldest invite leaves the 24-hour window', () => {
    const oldest = new Date(now.getTime() - FAMILY_INVITE_WINDOW_MS + 90_000);
    expect(inviteAllowance({ count: 3, oldest }, 3, now)).toEqual({ ok: false, retryAfterS: 90 });
    expect(inviteAllowance({ count: 5, oldest: new Date(now.getTime() - FAMILY_INVITE_WINDOW_MS) }, 3, now)).toEqual({ ok: false, retryAfterS: 1 });
  });
});
