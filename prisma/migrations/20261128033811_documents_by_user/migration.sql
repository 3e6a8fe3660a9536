-- DropIndex
DROP INDEX "documents_client_id_user_id_idx";

-- CreateIndex
CREATE INDEX "documents_user_id_created_at_idx" ON "documents"("user_id", "created_at");
