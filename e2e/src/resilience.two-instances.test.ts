/** resilience.test.ts again, with two instances of every service but the gateway. */
import './support/two-instances';
import './resilience.test';
