-- operators list failing and failed deliveries across stores, newest first
CREATE INDEX "webhook_delivery_status_created_at_id_idx" ON "webhook_delivery"("status", "created_at", "id");
