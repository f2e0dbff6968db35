-- the notification pruner deletes by age
CREATE INDEX "payment_notification_received_at_idx" ON "payment_notification"("received_at");
