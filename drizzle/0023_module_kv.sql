CREATE TABLE "module_kv" (
	"module_uid" varchar(64) NOT NULL,
	"key" varchar(200) NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "module_kv_module_uid_key_pk" PRIMARY KEY("module_uid","key")
);
