-- the console finds a customer's orders by e-mail (replicated lower-case, as the gateway stores it)
CREATE INDEX "user_replica_email_idx" ON "user_replica"("email");
