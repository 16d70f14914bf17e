CREATE TABLE "module_package" (
	"sha256" varchar(64) PRIMARY KEY NOT NULL,
	"uid" varchar(40) NOT NULL,
	"version" varchar(20) NOT NULL,
	"data" text NOT NULL,
	"size" integer NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "module_package_uid_idx" ON "module_package" USING btree ("uid");