/** order-flow.test.ts again, with a NATS user per service and the contracts' permissions (no anonymous bus). */
import './support/nats-users';
import './order-flow.test';
