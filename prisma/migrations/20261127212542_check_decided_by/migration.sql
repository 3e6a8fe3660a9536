-- CreateEnum
CREATE TYPE "CheckDecider" AS ENUM ('SYSTEM', 'OPERATOR', 'PROVIDER');

-- AlterTable
ALTER TABLE "check_runs" ADD COLUMN     "decided_by" "CheckDecider";

-- Runs completed before this column: a result posted with the operator key (provider "upstream")
-- was a person's, every other completed run a provider's automatic one.
UPDATE "check_runs" SET "decided_by" = CASE WHEN "result" ->> 'provider' = 'upstream' THEN 'OPERATOR'::"CheckDecider" ELSE 'SYSTEM'::"CheckDecider" END
WHERE "status" NOT IN ('QUEUED', 'RUNNING');
