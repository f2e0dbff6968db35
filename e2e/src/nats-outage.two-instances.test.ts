/** nats-outage.test.ts again, with two instances of every service but the gateway. */
import './support/two-instances';
import './nats-outage.test';
