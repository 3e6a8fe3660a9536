-- CreateEnum
CREATE TYPE "CheckType" AS ENUM ('KYC', 'SANCTIONS_SCREENING', 'TRANSACTION_MONITORING');

-- CreateEnum
CREATE TYPE "CheckStatus" AS ENUM ('QUEUED', 'RUNNING', 'CLEAR', 'CONSIDER', 'REJECTED', 'ERROR');

-- CreateEnum
CREATE TYPE "CheckTrigger" AS ENUM ('USER_UPDATED', 'DOCUMENT_CHANGED', 'VERIFICATION', 'PERIODIC', 'PROVIDER_UPDATE', 'MANUAL');

-- CreateTable
CREATE TABLE "compliance_rule_sets" (
    "id" UUID NOT NULL,
    "country" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "effective_from" TIMESTAMP(3) NOT NULL,
    "body" JSONB NOT NULL,
    "checksum" TEXT NOT NULL,
    "superseded_by" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "compliance_rule_sets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "check_runs" (
    "id" UUID NOT NULL,
    "client_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "type" "CheckType" NOT NULL,
    "status" "CheckStatus" NOT NULL DEFAULT 'QUEUED',
    "trigger" "CheckTrigger" NOT NULL,
    "result" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMP(3),
    "completed_at" TIMESTAMP(3),

    CONSTRAINT "check_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "compliance_rule_sets_country_version_key" ON "compliance_rule_sets"("country", "version");

-- CreateIndex
CREATE INDEX "check_runs_user_id_created_at_idx" ON "check_runs"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "check_runs_client_id_created_at_idx" ON "check_runs"("client_id", "created_at");

-- CreateIndex
CREATE INDEX "check_runs_status_created_at_idx" ON "check_runs"("status", "created_at");

-- AddForeignKey
ALTER TABLE "check_runs" ADD CONSTRAINT "check_runs_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
