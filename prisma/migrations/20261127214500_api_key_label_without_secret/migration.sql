-- `prefix` held the key's first 16 characters, up to 7 of them secret: each row now keeps only the
-- mode tag and the first 8 hex digits of the key's SHA-256 (clients.service.ts keyLabel).
UPDATE "api_keys" SET "prefix" = coalesce(substring("prefix" from '^ogk_[a-z]+_'), '') || '…' || left("hash", 8);
