CREATE TABLE "config" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(30) NOT NULL,
	"group" varchar(30) DEFAULT 'basics' NOT NULL,
	"title" varchar(50) DEFAULT '' NOT NULL,
	"tip" varchar(100) DEFAULT '' NOT NULL,
	"type" varchar(30) DEFAULT 'string' NOT NULL,
	"value" text DEFAULT '' NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"rule" varchar(100) DEFAULT '' NOT NULL,
	"extend" varchar(255) DEFAULT '' NOT NULL,
	"allow_del" smallint DEFAULT 0 NOT NULL,
	"weigh" integer DEFAULT 0 NOT NULL,
	"update_time" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "config_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "user_group" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(50) NOT NULL,
	"rules" text DEFAULT '' NOT NULL,
	"status" smallint DEFAULT 1 NOT NULL,
	"update_time" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_rule" (
	"id" serial PRIMARY KEY NOT NULL,
	"pid" integer DEFAULT 0 NOT NULL,
	"type" varchar(20) DEFAULT 'menu' NOT NULL,
	"title" varchar(50) DEFAULT '' NOT NULL,
	"name" varchar(50) DEFAULT '' NOT NULL,
	"path" varchar(100) DEFAULT '' NOT NULL,
	"icon" varchar(50) DEFAULT '' NOT NULL,
	"menu_type" varchar(10) DEFAULT 'tab' NOT NULL,
	"url" varchar(255) DEFAULT '' NOT NULL,
	"component" varchar(100) DEFAULT '' NOT NULL,
	"no_login_valid" smallint DEFAULT 0 NOT NULL,
	"extend" varchar(20) DEFAULT 'none' NOT NULL,
	"remark" varchar(255) DEFAULT '' NOT NULL,
	"weigh" integer DEFAULT 0 NOT NULL,
	"status" smallint DEFAULT 1 NOT NULL,
	"update_time" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "user_rule_type_chk" CHECK ("user_rule"."type" in ('route','menu_dir','menu','nav_user_menu','nav','button')),
	CONSTRAINT "user_rule_menu_type_chk" CHECK ("user_rule"."menu_type" in ('tab','link','iframe')),
	CONSTRAINT "user_rule_extend_chk" CHECK ("user_rule"."extend" in ('none','add_rules_only','add_menu_only'))
);
--> statement-breakpoint
CREATE INDEX "user_rule_pid_idx" ON "user_rule" USING btree ("pid");