/**
 * Imported first by a `*.nats-users.test.ts` file: the stacks the file then starts run on a
 * nats-server of their own with one NATS user per service, permissions from the contracts, and no
 * anonymous access (what a deployment runs).
 */
import { useNatsUsers } from './stack';

useNatsUsers();
