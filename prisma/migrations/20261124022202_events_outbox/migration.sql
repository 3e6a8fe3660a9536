-- CreateTable
CREATE TABLE "events" (
    "id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "client_id" UUID,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMP(3),

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "events_seq_key" ON "events"("seq");

-- CreateIndex
CREATE INDEX "events_client_id_seq_idx" ON "events"("client_id", "seq");

-- CreateIndex
CREATE INDEX "events_published_at_seq_idx" ON "events"("published_at", "seq");
