-- CreateTable
CREATE TABLE "corridor_requirements" (
    "corridor_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "effective_at" TIMESTAMP(3) NOT NULL,
    "source" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "corridor_requirements_pkey" PRIMARY KEY ("corridor_id","version")
);

-- AddForeignKey
ALTER TABLE "corridor_requirements" ADD CONSTRAINT "corridor_requirements_corridor_id_fkey" FOREIGN KEY ("corridor_id") REFERENCES "corridors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
