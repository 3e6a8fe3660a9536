-- CreateEnum
CREATE TYPE "WebhookOutcome" AS ENUM ('SUCCEEDED', 'HTTP_ERROR', 'REDIRECTED', 'TIMEOUT', 'NETWORK_ERROR', 'BLOCKED');

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "client_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "event_types" TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "secret_encrypted" TEXT NOT NULL,
    "previous_secret_encrypted" TEXT,
    "previous_secret_expires_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "client_id" UUID NOT NULL,
    "event_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempt_number" INTEGER NOT NULL,
    "outcome" "WebhookOutcome" NOT NULL,
    "status_code" INTEGER,
    "duration_ms" INTEGER NOT NULL,
    "response_snippet" TEXT,
    "attempted_at" TIMESTAMP(3) NOT NULL,
    "next_retry_at" TIMESTAMP(3),

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_client_id_created_at_idx" ON "webhook_endpoints"("client_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_attempts_endpoint_id_attempted_at_idx" ON "webhook_attempts"("endpoint_id", "attempted_at");

-- CreateIndex
CREATE INDEX "webhook_attempts_endpoint_id_event_id_idx" ON "webhook_attempts"("endpoint_id", "event_id");

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
