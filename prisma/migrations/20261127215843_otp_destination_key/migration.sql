-- AlterTable
ALTER TABLE "otp_codes" ADD COLUMN     "destination_key" TEXT;

-- CreateIndex
CREATE INDEX "otp_codes_client_id_destination_key_created_at_idx" ON "otp_codes"("client_id", "destination_key", "created_at");

-- CreateIndex
CREATE INDEX "otp_codes_client_id_created_at_idx" ON "otp_codes"("client_id", "created_at");
