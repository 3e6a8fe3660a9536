-- Operator power is the operator key's, never a client's scope: no operation checks a client's
-- `admin` any more (OPERATOR_ONLY), and the scope is taken off every client that was given it.
UPDATE "api_clients" SET "scopes" = array_remove("scopes", 'admin') WHERE 'admin' = ANY ("scopes");
