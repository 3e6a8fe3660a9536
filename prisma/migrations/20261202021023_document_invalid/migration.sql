-- AlterEnum
ALTER TYPE "DocumentStatus" ADD VALUE 'INVALID';

-- AlterTable
ALTER TABLE "documents" ADD COLUMN     "invalid_reason" TEXT;
