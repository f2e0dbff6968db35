import { randomUUID } from 'node:crypto';
import { emailMessageSchema, type EmailMessage, type EmailTemplate } from '@pasar/contracts';
import { escapeHtml } from './layout';
import { renderEmail } from './render';

/** A value with every HTML special character, so escaping (or its absence) shows. */
const hostile = (label: string) => `${label} <script>alert("x")</script> & 'co'`;

function message(template: EmailTemplate): EmailMessage {
  // through the contract, so the fixtures are messages a publisher could really send
  return emailMessageSchema.parse({ messageId: randomUUID(), to: 'buyer@example.test', ...template });
}

/** Each variable appears verbatim in the text part and only escaped in the HTML part. */
function expectVariables(rendered: { text: string; html: string }, values: string[]): void {
  for (const value of values) {
    expect(rendered.text).toContain(value);
    expect(rendered.html).toContain(escapeHtml(value));
    if (value !== escapeHtml(value)) expect(rendered.html).not.toContain(value);
  }
  expect(rendered.html).not.toMatch(/<script/i);
}

describe('escapeHtml', () => {
  it('escapes the five HTML special characters', () => {
    expect(escapeHtml(`<a href="x">Tom & 'Jerry'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;');
  });
});

describe('renderEmail', () => {
  it('welcome: greets by name', () => {
    const fullName = hostile('Aminah');
    const rendered = renderEmail(message({ template: 'welcome', vars: { fullName } }));
    expect(rendered.subject).toBe('Welcome to Pasar');
    expectVariables(rendered, [fullName]);
  });

  it('credentials: e-mail, password and sign-in link', () => {
    const vars = {
      fullName: hostile('Vendor'),
      email: 'vendor@example.test',
      password: `p<a>ss&"word'`,
      signInUrl: 'https://pasar.example/sign-in?next=/vendor&x="1"',
    };
    const rendered = renderEmail(message({ template: 'credentials', vars }));
    expect(rendered.subject).toBe('Your Pasar sign-in details');
    expectVariables(rendered, Object.values(vars));
    expect(rendered.html).toContain(`href="${escapeHtml(vars.signInUrl)}"`);
  });

  it('invite: inviter and group in the subject, temporary password and setup link in the body', () => {
    const vars = {
      fullName: hostile('Staff'),
      inviterName: 'Siti & Co',
      groupName: 'Acme <Trading> Sdn Bhd',
      email: 'staff@example.test',
      temporaryPassword: 'Tmp<pass>&1',
      setupUrl: 'https://pasar.example/account/setup',
    };
    const rendered = renderEmail(message({ template: 'invite', vars }));
    expect(rendered.subject).toBe('Siti & Co invited you to Acme <Trading> Sdn Bhd on Pasar');
    expectVariables(rendered, Object.values(vars));
    expect(rendered.html).toContain('<title>Siti &amp; Co invited you to Acme &lt;Trading&gt; Sdn Bhd on Pasar</title>');
  });

  it('invite for an existing account: no password in the body', () => {
    const vars = {
      fullName: 'Existing',
      inviterName: 'Siti',
      groupName: 'The Tans',
      email: 'existing@example.test',
      temporaryPassword: null,
      setupUrl: 'https://pasar.example/account/setup',
    };
    const rendered = renderEmail(message({ template: 'invite', vars }));
    expect(rendered.text).not.toContain('Temporary password');
    expect(rendered.text).toContain('your current Pasar password');
    expect(rendered.text).toContain('existing@example.test');
  });

  it('order_confirmation: short id and total in MYR', () => {
    const vars = { fullName: hostile('Buyer'), shortId: 'PSR-<1A2B>', total: '1234.50' };
    const rendered = renderEmail(message({ template: 'order_confirmation', vars }));
    expect(rendered.subject).toBe('Order PSR-<1A2B> confirmed');
    expectVariables(rendered, [vars.fullName, vars.shortId, 'MYR 1234.50']);
  });

  it('vendor_application_rejected: store name and the reviewer note, line breaks kept', () => {
    const vars = { fullName: hostile('Applicant'), storeName: 'Kedai "Best" & Sons', note: 'SSM certificate <missing>\nTIN unreadable' };
    const rendered = renderEmail(message({ template: 'vendor_application_rejected', vars }));
    expect(rendered.subject).toBe('Your vendor application for Kedai "Best" & Sons');
    expectVariables(rendered, [vars.fullName, vars.storeName, 'SSM certificate <missing>', 'TIN unreadable']);
    expect(rendered.text).toContain('> SSM certificate <missing>\n> TIN unreadable');
    expect(rendered.html).toContain('SSM certificate &lt;missing&gt;<br>\nTIN unreadable');
  });

  it('vendor_application_rejected: no reviewer block without a note', () => {
    const rendered = renderEmail(
      message({ template: 'vendor_application_rejected', vars: { fullName: 'A', storeName: 'Kedai', note: '  ' } }),
    );
    expect(rendered.text).not.toContain('Our reviewer noted');
  });

  it('webhook_endpoint_disabled: store, endpoint URL and reason', () => {
    const vars = { storeName: 'Kedai <Batik>', url: 'https://hooks.example/in?a=1&b=2', reason: 'every attempt failed for 3 days' };
    const rendered = renderEmail(message({ template: 'webhook_endpoint_disabled', vars }));
    expect(rendered.subject).toBe('A webhook endpoint of Kedai <Batik> was disabled');
    expectVariables(rendered, [vars.storeName, vars.url, vars.reason]);
  });

  it('company_reviewed approved: approval subject, no reason', () => {
    const vars = { fullName: hostile('Admin'), companyName: 'Acme <Trading>', approved: true, reason: null };
    const rendered = renderEmail(message({ template: 'company_reviewed', vars }));
    expect(rendered.subject).toBe('Acme <Trading> is approved on Pasar');
    expectVariables(rendered, [vars.fullName, vars.companyName]);
    expect(rendered.text).toContain('approved');
  });

  it('company_reviewed rejected: rejection subject and the reason', () => {
    const vars = { fullName: hostile('Admin'), companyName: 'Acme & Sons', approved: false, reason: 'SSM number "123" <invalid>' };
    const rendered = renderEmail(message({ template: 'company_reviewed', vars }));
    expect(rendered.subject).toBe('Acme & Sons was not approved on Pasar');
    expectVariables(rendered, [vars.fullName, vars.companyName, vars.reason]);
  });

  it('keeps the subject on one line whatever the variables hold', () => {
    const rendered = renderEmail(message({ template: 'order_confirmation', vars: { fullName: 'A', shortId: 'X\r\nBcc: evil@example.test', total: '1.00' } }));
    expect(rendered.subject).toBe('Order X Bcc: evil@example.test confirmed');
    expect(rendered.subject).not.toMatch(/[\r\n]/);
  });

  it('every part ends up non-empty and signed', () => {
    const rendered = renderEmail(message({ template: 'welcome', vars: { fullName: 'Aminah' } }));
    expect(rendered.text).toMatch(/^Hi Aminah,\n\n/);
    expect(rendered.text).toContain('The Pasar team');
    expect(rendered.html).toMatch(/^<!doctype html>/);
  });
});

describe('contract', () => {
  it('refuses links that are not absolute http(s) URLs', () => {
    const base = { messageId: randomUUID(), to: 'a@example.test', template: 'credentials', vars: { fullName: 'A', email: 'a@example.test', password: 'x' } };
    for (const signInUrl of ['javascript:alert(1)', '/sign-in', 'ftp://pasar.example/x']) {
      expect(emailMessageSchema.safeParse({ ...base, vars: { ...base.vars, signInUrl } }).success).toBe(false);
    }
    expect(emailMessageSchema.safeParse({ ...base, vars: { ...base.vars, signInUrl: 'http://localhost:8080/sign-in' } }).success).toBe(true);
  });
});
