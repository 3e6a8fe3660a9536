-- CreateTable
CREATE TABLE "sandbox_clocks" (
    "client_id" UUID NOT NULL,
    "offset_seconds" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "sandbox_clocks_pkey" PRIMARY KEY ("client_id")
);

-- AddForeignKey
ALTER TABLE "sandbox_clocks" ADD CONSTRAINT "sandbox_clocks_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "api_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE;
