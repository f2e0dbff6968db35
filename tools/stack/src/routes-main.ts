/** `npm run routes`: prints every route; `npm run routes -- --write` writes docs/routes.md. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './import-graph';
import { listRoutes, routesMarkdown, routesText } from './routes';

const routes = listRoutes();
if (process.argv.includes('--write')) {
  writeFileSync(join(ROOT, 'docs', 'routes.md'), routesMarkdown(routes));
  console.log(`docs/routes.md: ${routes.length} routes`);
} else {
  console.log(routesText(routes));
}
