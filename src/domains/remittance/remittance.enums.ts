/** The remittance enums, shared by the lookups (results) and the operator's mutations (inputs). */
import { ReceivingInstitutionType, ReferenceStatus } from "../../../generated/prisma/enums.js";
import { builder } from "../../graphql/builder.js";
import { USER_TYPES } from "./remittance.rules.js";

export const InstitutionTypeEnum = builder.enumType(ReceivingInstitutionType, { name: "ReceivingInstitutionType" });
export const StatusEnum = builder.enumType(ReferenceStatus, { name: "ReferenceStatus" });
export const BeneficiaryTypeEnum = builder.enumType("BeneficiaryType", { values: USER_TYPES, description: "Who receives the payout (`user_type` on REST)" });
