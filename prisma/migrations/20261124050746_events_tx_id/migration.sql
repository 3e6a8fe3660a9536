-- AlterTable
ALTER TABLE "events" ADD COLUMN     "tx_id" xid8 NOT NULL DEFAULT pg_current_xact_id();

-- CreateIndex
CREATE INDEX "events_client_id_tx_id_seq_idx" ON "events"("client_id", "tx_id", "seq");
