-- CreateEnum
CREATE TYPE "ReceivingInstitutionType" AS ENUM ('BANK', 'MOBILE_WALLET', 'CASH_PICKUP', 'CARDS');

-- CreateEnum
CREATE TYPE "ReferenceStatus" AS ENUM ('ACTIVE', 'INACTIVE');

-- CreateTable
CREATE TABLE "countries" (
    "code" CHAR(2) NOT NULL,
    "alpha3" CHAR(3) NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "countries_pkey" PRIMARY KEY ("code")
);

-- CreateTable
CREATE TABLE "currencies" (
    "code" CHAR(3) NOT NULL,
    "name" TEXT NOT NULL,
    "minor_units" INTEGER,
    "symbol" TEXT,
    "status" "ReferenceStatus" NOT NULL DEFAULT 'ACTIVE',
    "search_key" TEXT NOT NULL,

    CONSTRAINT "currencies_pkey" PRIMARY KEY ("code")
);

-- CreateTable
CREATE TABLE "country_currencies" (
    "country_code" CHAR(2) NOT NULL,
    "currency_code" CHAR(3) NOT NULL,

    CONSTRAINT "country_currencies_pkey" PRIMARY KEY ("country_code","currency_code")
);

-- CreateTable
CREATE TABLE "corridors" (
    "id" TEXT NOT NULL,
    "receiving_country" CHAR(2) NOT NULL,
    "receiving_currency" CHAR(3) NOT NULL,
    "receiving_institution_type" "ReceivingInstitutionType" NOT NULL,
    "min_amount" BIGINT NOT NULL,
    "max_amount" BIGINT NOT NULL,
    "delivery_min_hours" INTEGER NOT NULL,
    "delivery_max_hours" INTEGER NOT NULL,
    "delivery_description" TEXT NOT NULL,
    "required_fields" TEXT[],
    "user_types" TEXT[] DEFAULT ARRAY['INDIVIDUAL', 'BUSINESS']::TEXT[],
    "status" "ReferenceStatus" NOT NULL DEFAULT 'ACTIVE',
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "corridors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "receiving_institutions" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "name_key" TEXT NOT NULL,
    "type" "ReceivingInstitutionType" NOT NULL,
    "country_code" CHAR(2) NOT NULL,
    "bic" TEXT,
    "local_code" TEXT,
    "local_code_type" TEXT,
    "has_branches" BOOLEAN NOT NULL DEFAULT false,
    "status" "ReferenceStatus" NOT NULL DEFAULT 'ACTIVE',
    "source" TEXT,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "receiving_institutions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "branches" (
    "id" TEXT NOT NULL,
    "institution_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "city" TEXT,
    "address" TEXT,
    "name_key" TEXT NOT NULL,
    "city_key" TEXT,
    "search_key" TEXT NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "branches_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "countries_alpha3_key" ON "countries"("alpha3");

-- CreateIndex
CREATE INDEX "country_currencies_currency_code_idx" ON "country_currencies"("currency_code");

-- CreateIndex
CREATE INDEX "corridors_receiving_institution_type_idx" ON "corridors"("receiving_institution_type");

-- CreateIndex
CREATE UNIQUE INDEX "corridors_receiving_country_receiving_currency_receiving_in_key" ON "corridors"("receiving_country", "receiving_currency", "receiving_institution_type");

-- CreateIndex
CREATE INDEX "receiving_institutions_country_code_type_name_key_idx" ON "receiving_institutions"("country_code", "type", "name_key");

-- CreateIndex
CREATE INDEX "branches_institution_id_name_key_idx" ON "branches"("institution_id", "name_key");

-- AddForeignKey
ALTER TABLE "country_currencies" ADD CONSTRAINT "country_currencies_country_code_fkey" FOREIGN KEY ("country_code") REFERENCES "countries"("code") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "country_currencies" ADD CONSTRAINT "country_currencies_currency_code_fkey" FOREIGN KEY ("currency_code") REFERENCES "currencies"("code") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "corridors" ADD CONSTRAINT "corridors_receiving_country_fkey" FOREIGN KEY ("receiving_country") REFERENCES "countries"("code") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "corridors" ADD CONSTRAINT "corridors_receiving_currency_fkey" FOREIGN KEY ("receiving_currency") REFERENCES "currencies"("code") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "receiving_institutions" ADD CONSTRAINT "receiving_institutions_country_code_fkey" FOREIGN KEY ("country_code") REFERENCES "countries"("code") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "branches" ADD CONSTRAINT "branches_institution_id_fkey" FOREIGN KEY ("institution_id") REFERENCES "receiving_institutions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
