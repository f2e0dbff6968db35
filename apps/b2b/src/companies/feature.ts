import type { B2bFeature } from '../feature';
import { adminCompanyRoutes, companyRoutes } from './routes';

/** Companies: registration, editing, details, tax completeness, and the administrators' review. */
export const companiesFeature: B2bFeature = {
  name: 'companies',
  routes: (router, ctx) => {
    companyRoutes(router, ctx);
    adminCompanyRoutes(router, ctx);
  },
};
