// Prints the OpenAPI document the gateway serves at /api/v1/openapi.json (built from the contracts).
import { buildOpenApiDocument } from '@pasar/contracts';

process.stdout.write(JSON.stringify(buildOpenApiDocument()));
