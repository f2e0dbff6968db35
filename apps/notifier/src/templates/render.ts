import type { EmailMessage, EmailTemplateName, EmailVars } from '@pasar/contracts';
import { layout, type Block, type RenderedEmail } from './layout';

export type { RenderedEmail } from './layout';

type TemplateRenderer<T extends EmailTemplateName> = (vars: EmailVars<T>) => RenderedEmail;

/** One renderer per template: subject and body blocks; `layout` escapes every variable. */
export const templates: { readonly [T in EmailTemplateName]: TemplateRenderer<T> } = {
  welcome: (vars) =>
    layout('Welcome to Pasar', [
      { kind: 'greeting', name: vars.fullName },
      { kind: 'paragraph', text: 'Your Pasar account is ready. Browse stores, follow the ones you like and earn points on every order.' },
    ]),

  credentials: (vars) =>
    layout('Your Pasar sign-in details', [
      { kind: 'greeting', name: vars.fullName },
      { kind: 'paragraph', text: 'An account on Pasar is ready for you. Sign in with these details:' },
      {
        kind: 'details',
        rows: [
          ['E-mail', vars.email],
          ['Temporary password', vars.password],
        ],
      },
      { kind: 'action', label: 'Sign in', url: vars.signInUrl },
      { kind: 'paragraph', text: 'You will be asked to choose your own password when you first sign in.' },
    ]),

  invite: (vars) =>
    layout(`${vars.inviterName} invited you to ${vars.groupName} on Pasar`, [
      { kind: 'greeting', name: vars.fullName },
      { kind: 'paragraph', text: `${vars.inviterName} invited you to join ${vars.groupName} on Pasar. Sign in with these details:` },
      {
        kind: 'details',
        rows: vars.temporaryPassword
          ? [
              ['E-mail', vars.email],
              ['Temporary password', vars.temporaryPassword],
            ]
          : [
              ['E-mail', vars.email],
              ['Password', 'your current Pasar password'],
            ],
      },
      vars.temporaryPassword
        ? { kind: 'action', label: 'Set up your account', url: vars.setupUrl }
        : { kind: 'action', label: 'Sign in', url: vars.setupUrl },
      {
        kind: 'paragraph',
        text: vars.temporaryPassword
          ? 'You will be asked to choose your own password and complete your details when you first sign in.'
          : 'You already have a Pasar account; the invitation is waiting for you when you sign in.',
      },
    ]),

  order_confirmation: (vars) =>
    layout(`Order ${vars.shortId} confirmed`, [
      { kind: 'greeting', name: vars.fullName },
      { kind: 'paragraph', text: `Thank you for your order. We have received your payment for order ${vars.shortId}.` },
      {
        kind: 'details',
        rows: [
          ['Order', vars.shortId],
          ['Total paid', `MYR ${vars.total}`],
        ],
      },
      { kind: 'paragraph', text: 'We will let the sellers know; you can follow your order under My orders.' },
    ]),

  vendor_application_rejected: (vars) => {
    const blocks: Block[] = [
      { kind: 'greeting', name: vars.fullName },
      { kind: 'paragraph', text: `Thank you for applying to sell on Pasar as ${vars.storeName}. We are unable to approve your application.` },
    ];
    if (vars.note.trim()) blocks.push({ kind: 'paragraph', text: 'Our reviewer noted:' }, { kind: 'quote', text: vars.note });
    blocks.push({ kind: 'paragraph', text: 'You are welcome to apply again once the points above are addressed.' });
    return layout(`Your vendor application for ${vars.storeName}`, blocks);
  },

  company_reviewed: (vars) => {
    if (vars.approved) {
      return layout(`${vars.companyName} is approved on Pasar`, [
        { kind: 'greeting', name: vars.fullName },
        {
          kind: 'paragraph',
          text: `Good news: ${vars.companyName} has been approved for business purchasing on Pasar. Your team can now raise purchase requests.`,
        },
      ]);
    }
    const blocks: Block[] = [
      { kind: 'greeting', name: vars.fullName },
      { kind: 'paragraph', text: `We reviewed the registration of ${vars.companyName} and are unable to approve it.` },
    ];
    if (vars.reason?.trim()) blocks.push({ kind: 'paragraph', text: 'Reason:' }, { kind: 'quote', text: vars.reason });
    return layout(`${vars.companyName} was not approved on Pasar`, blocks);
  },

  webhook_endpoint_disabled: (vars) =>
    layout(`A webhook endpoint of ${vars.storeName} was disabled`, [
      { kind: 'paragraph', text: `We stopped sending events of ${vars.storeName} to this webhook endpoint:` },
      { kind: 'details', rows: [['Endpoint', vars.url], ['Reason', vars.reason]] },
      {
        kind: 'paragraph',
        text: 'Fix the receiver, then enable the endpoint again under Webhooks. Events that failed can be sent again with a replay.',
      },
    ]),
};

/** Subject, text and HTML of one e-mail. Pure: no I/O, no clock. */
export function renderEmail(message: EmailMessage): RenderedEmail {
  switch (message.template) {
    case 'welcome':
      return templates.welcome(message.vars);
    case 'credentials':
      return templates.credentials(message.vars);
    case 'invite':
      return templates.invite(message.vars);
    case 'order_confirmation':
      return templates.order_confirmation(message.vars);
    case 'vendor_application_rejected':
      return templates.vendor_application_rejected(message.vars);
    case 'company_reviewed':
      return templates.company_reviewed(message.vars);
    case 'webhook_endpoint_disabled':
      return templates.webhook_endpoint_disabled(message.vars);
    default: {
      const unknown: never = message;
      throw new Error(`unknown e-mail template in ${JSON.stringify(unknown)}`);
    }
  }
}
