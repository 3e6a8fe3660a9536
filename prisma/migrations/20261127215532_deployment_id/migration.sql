-- CreateTable
CREATE TABLE "deployment" (
    "id" UUID NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deployment_pkey" PRIMARY KEY ("id")
);

-- This deployment's one id, drawn once: every instance on this database reads the same.
INSERT INTO "deployment" ("id") VALUES (gen_random_uuid());
