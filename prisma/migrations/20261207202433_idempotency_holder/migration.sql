-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "holder" UUID,
ADD COLUMN     "key_id" TEXT,
ADD COLUMN     "lease_until" TIMESTAMPTZ(3),
ADD COLUMN     "writes" TEXT[] DEFAULT ARRAY[]::TEXT[];
