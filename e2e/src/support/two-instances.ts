/**
 * Imported first by a `*.two-instances.test.ts` file: the stacks the file then starts run two
 * instances of checkout, b2b, vendor, admin and notifier behind one gateway (DESIGN §9: nothing may
 * assume it is the only instance).
 */
import { useReplicas } from './stack';

useReplicas(2);
