import {
  adminCompaniesQuery,
  companyIdParam,
  listQuery,
  registerCompanyBody,
  rejectCompanyBody,
  updateCompanyBody,
  uuidParam,
} from '@pasar/contracts';
import { API_PREFIX, parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import type { B2bDeps } from '../deps';
import { requireMember } from '../members/access';
import { COMPANY_EDITORS } from '../members/rules';
import { adminCompanyDetail, listCompanies, registerCompany, reviewCompany, taxCompletenessFor, toCompanyDetails, updateCompany } from './companies';

type Deps = Pick<B2bDeps, 'prisma' | 'bus' | 'config' | 'log' | 'clock'>;

/** Company registration and editing, company details and tax completeness (customer side). */
export function companyRoutes(router: Router, deps: Deps): void {
  router.post('/b2b/companies', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const id = await registerCompany(deps, userId, parse(registerCompanyBody, req.body));
    res.status(201).location(`${API_PREFIX}/b2b/${id}/company-details`).end();
  });

  router.patch('/b2b/companies/:id', async (req, res) => {
    const { id } = parse(uuidParam, req.params);
    const body = parse(updateCompanyBody, req.body);
    const membership = await requireMember(deps.prisma, req, id, COMPANY_EDITORS, 'edit the company');
    await updateCompany(deps, membership, body);
    res.status(204).end();
  });

  router.get('/b2b/:companyId/company-details', async (req, res) => {
    const { companyId } = parse(companyIdParam, req.params);
    const { company } = await requireMember(deps.prisma, req, companyId);
    res.json(toCompanyDetails(company));
  });

  router.get('/b2b/:companyId/tax-completeness', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { companyId } = parse(companyIdParam, req.params);
    res.json(await taxCompletenessFor(deps.prisma, userId, companyId));
  });
}

/** /admin/b2b/companies: list, pending, detail, approve, reject (administrators). */
export function adminCompanyRoutes(router: Router, deps: Deps): void {
  const BASE = '/admin/b2b/companies';
  router.get(BASE, async (req, res) => {
    requireRole(req, 'admin');
    const { status, ...page } = parse(adminCompaniesQuery, req.query);
    res.json(await listCompanies(deps, status, page));
  });

  router.get(`${BASE}/pending`, async (req, res) => {
    requireRole(req, 'admin');
    res.json(await listCompanies(deps, 'pending', parse(listQuery, req.query)));
  });

  router.get(`${BASE}/:id`, async (req, res) => {
    requireRole(req, 'admin');
    res.json(await adminCompanyDetail(deps, parse(uuidParam, req.params).id));
  });

  router.post(`${BASE}/:id/approve`, async (req, res) => {
    const { userId } = requireRole(req, 'admin');
    await reviewCompany(deps, userId, parse(uuidParam, req.params).id, { approved: true });
    res.status(204).end();
  });

  router.post(`${BASE}/:id/reject`, async (req, res) => {
    const { userId } = requireRole(req, 'admin');
    const { id } = parse(uuidParam, req.params);
    const { reason } = parse(rejectCompanyBody, req.body);
    await reviewCompany(deps, userId, id, { approved: false, reason });
    res.status(204).end();
  });
}
