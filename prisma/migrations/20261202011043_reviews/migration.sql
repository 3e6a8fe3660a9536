-- CreateEnum
CREATE TYPE "ReviewStatus" AS ENUM ('OPEN', 'PENDING_APPROVAL', 'ESCALATED', 'CLOSED');

-- CreateEnum
CREATE TYPE "ReviewOutcome" AS ENUM ('CLEAR', 'REJECT', 'ESCALATE');

-- CreateEnum
CREATE TYPE "HitDecision" AS ENUM ('FALSE_POSITIVE', 'TRUE_MATCH');

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "CheckTrigger" ADD VALUE 'LIST_UPDATE';
ALTER TYPE "CheckTrigger" ADD VALUE 'REVIEW';

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "reviewer_id" UUID;

-- CreateTable
CREATE TABLE "reviewers" (
    "id" UUID NOT NULL,
    "client_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reviewers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reviews" (
    "id" UUID NOT NULL,
    "client_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "type" "CheckType" NOT NULL,
    "status" "ReviewStatus" NOT NULL DEFAULT 'OPEN',
    "check_run_id" UUID NOT NULL,
    "risk_score" INTEGER NOT NULL,
    "reasons" TEXT[],
    "screened" JSONB NOT NULL,
    "assignee_id" UUID,
    "outcome" "ReviewOutcome",
    "reason_code" TEXT,
    "note" TEXT,
    "decided_by_id" UUID,
    "decided_at" TIMESTAMP(3),
    "approved_by_id" UUID,
    "approved_at" TIMESTAMP(3),
    "decision_run_id" UUID,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "reviews_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review_hits" (
    "id" UUID NOT NULL,
    "review_id" UUID NOT NULL,
    "client_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "check_run_id" UUID NOT NULL,
    "list" TEXT NOT NULL,
    "list_version" TEXT NOT NULL,
    "entry_id" TEXT NOT NULL,
    "entry_hash" TEXT NOT NULL,
    "subject_hash" TEXT NOT NULL,
    "score" DOUBLE PRECISION NOT NULL,
    "match" JSONB NOT NULL,
    "decision" "HitDecision",
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_hits_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "watchlist_imports" (
    "id" UUID NOT NULL,
    "list_version" TEXT NOT NULL,
    "previous" TEXT NOT NULL,
    "added" INTEGER NOT NULL,
    "changed" INTEGER NOT NULL,
    "removed" INTEGER NOT NULL,
    "rescreened" INTEGER NOT NULL DEFAULT 0,
    "imported_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rescreened_at" TIMESTAMP(3),
    "last_alert_at" TIMESTAMP(3),

    CONSTRAINT "watchlist_imports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "reviewers_client_id_idx" ON "reviewers"("client_id");

-- CreateIndex
CREATE INDEX "reviews_client_id_status_risk_score_created_at_idx" ON "reviews"("client_id", "status", "risk_score", "created_at");

-- CreateIndex
CREATE INDEX "reviews_user_id_type_status_idx" ON "reviews"("user_id", "type", "status");

-- CreateIndex
CREATE INDEX "review_hits_user_id_decision_idx" ON "review_hits"("user_id", "decision");

-- CreateIndex
CREATE UNIQUE INDEX "review_hits_review_id_entry_id_key" ON "review_hits"("review_id", "entry_id");

-- CreateIndex
CREATE INDEX "watchlist_imports_imported_at_idx" ON "watchlist_imports"("imported_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_reviewer_id_fkey" FOREIGN KEY ("reviewer_id") REFERENCES "reviewers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_assignee_id_fkey" FOREIGN KEY ("assignee_id") REFERENCES "reviewers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_decided_by_id_fkey" FOREIGN KEY ("decided_by_id") REFERENCES "reviewers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_approved_by_id_fkey" FOREIGN KEY ("approved_by_id") REFERENCES "reviewers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_hits" ADD CONSTRAINT "review_hits_review_id_fkey" FOREIGN KEY ("review_id") REFERENCES "reviews"("id") ON DELETE CASCADE ON UPDATE CASCADE;
