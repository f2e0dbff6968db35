/** order-flow.test.ts again, with two instances of every service but the gateway. */
import './support/two-instances';
import './order-flow.test';
