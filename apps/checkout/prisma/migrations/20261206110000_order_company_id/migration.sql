-- the buying company of a B2B order (b2b's company id), carried by the order's paid and
-- status_changed events: the gateway's B2B live stream takes a company's new orders from them
ALTER TABLE "order" ADD COLUMN "company_id" UUID;
