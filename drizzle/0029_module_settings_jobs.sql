CREATE TABLE "module_instance" (
	"id" varchar(64) PRIMARY KEY NOT NULL,
	"label" varchar(120) NOT NULL,
	"packages" jsonb NOT NULL,
	"seen_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "module_job" (
	"module_uid" varchar(64) NOT NULL,
	"name" varchar(40) NOT NULL,
	"next_time" bigint NOT NULL,
	"claimed_until" bigint DEFAULT 0 NOT NULL,
	"last_time" bigint DEFAULT 0 NOT NULL,
	"last_ms" integer DEFAULT 0 NOT NULL,
	"last_ok" smallint DEFAULT 0 NOT NULL,
	"last_error" varchar(255) DEFAULT '' NOT NULL,
	"runs" integer DEFAULT 0 NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "module_job_module_uid_name_pk" PRIMARY KEY("module_uid","name")
);
--> statement-breakpoint
CREATE TABLE "module_setting" (
	"module_uid" varchar(64) PRIMARY KEY NOT NULL,
	"values" jsonb NOT NULL,
	"update_time" bigint NOT NULL
);
