-- a booking whose shipment was cancelled while it was being retried (the retries stop)
ALTER TYPE "carrier_booking_status" ADD VALUE 'cancelled';
