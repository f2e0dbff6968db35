/**
 * Demo B2B data for `npm start`: an approved company with TIN and MSIC, its company_admin and a
 * staff member (both customers with the demo password). Through the services' own doors (identity
 * rpc, the gateway's API), idempotent: what exists is left alone.
 */
import type { Bus } from '@pasar/bus';
import { createUser, expectStatus, signIn, type Session } from './seed-client';

export const DEMO_B2B_ADMIN_EMAIL = 'b2b-admin@pasar.local';
export const DEMO_B2B_STAFF_EMAIL = 'b2b-staff@pasar.local';

export interface B2bDemoSeedOptions {
  bus: Bus;
  gatewayUrl: string;
  admin: { email: string; password: string };
  password: string;
}

const DEMO_COMPANY = {
  name: 'Syarikat Demo Sdn Bhd',
  ssm_number: '202401000001',
  industry: 'Wholesale trade',
  address_line1: '8 Jalan Perniagaan',
  city: 'Petaling Jaya',
  state: 'Selangor',
  postcode: '47301',
  contact_name: 'Demo Company Admin',
  contact_phone: '+60 3-7000 0000',
  contact_email: DEMO_B2B_ADMIN_EMAIL,
};

/** The approved demo company with its company_admin and staff member; answers the company id. */
export async function seedB2bDemo(options: B2bDemoSeedOptions): Promise<{ companyId: string }> {
  const { bus, gatewayUrl, password } = options;
  const ownerId = await createUser(bus, DEMO_B2B_ADMIN_EMAIL, 'Demo Company Admin', 'customer', password);
  await createUser(bus, DEMO_B2B_STAFF_EMAIL, 'Demo Staff', 'customer', password);
  const owner = await signIn(gatewayUrl, DEMO_B2B_ADMIN_EMAIL, password);
  const admin = await signIn(gatewayUrl, options.admin.email, options.admin.password);

  expectStatus('B2B company', await owner.call('POST', '/b2b/companies', DEMO_COMPANY), 201, 409);
  const companyId = await ownedCompanyId(admin, ownerId);
  expectStatus('B2B company approval', await admin.call('POST', `/admin/b2b/companies/${companyId}/approve`), 204, 409);
  const edit = {
    name: DEMO_COMPANY.name,
    addressLine1: DEMO_COMPANY.address_line1,
    city: DEMO_COMPANY.city,
    state: DEMO_COMPANY.state,
    postcode: DEMO_COMPANY.postcode,
    contactName: DEMO_COMPANY.contact_name,
    contactPhone: DEMO_COMPANY.contact_phone,
    contactEmail: DEMO_COMPANY.contact_email,
    industry: DEMO_COMPANY.industry,
    tin: 'C20240000010',
    msicCode: '46900',
  };
  expectStatus('B2B company TIN and MSIC', await owner.call('PATCH', `/b2b/companies/${companyId}`, edit), 204);
  // an existing customer is invited (202 whatever the e-mail) and accepts; 502: the invite e-mail could not be sent, the invitation stands
  const invite = await owner.call('POST', `/b2b/${companyId}/team`, { email: DEMO_B2B_STAFF_EMAIL, fullName: 'Demo Staff', b2bRole: 'staff' });
  expectStatus('B2B staff member', invite, 202, 502);
  const staff = await signIn(gatewayUrl, DEMO_B2B_STAFF_EMAIL, password);
  const invitations = await staff.call('GET', '/b2b/invitations');
  expectStatus('B2B invitations', invitations, 200);
  for (const invitation of invitations.json as { id: string; companyId: string }[]) {
    if (invitation.companyId === companyId) expectStatus('B2B invitation accepted', await staff.call('POST', `/b2b/invitations/${invitation.id}/accept`), 204);
  }
  return { companyId };
}

/** The demo owner's company (approved, or pending from an earlier run), from the administrators' list. */
async function ownedCompanyId(admin: Session, ownerId: string): Promise<string> {
  for (const status of ['approved', 'pending']) {
    const list = await admin.call('GET', `/admin/b2b/companies?status=${status}&limit=200`);
    expectStatus('B2B companies', list, 200);
    const company = (list.json as { id: string; owner_id: string }[]).find((c) => c.owner_id === ownerId);
    if (company) return company.id;
  }
  throw new Error('seed: the demo company was not found after registering it');
}
