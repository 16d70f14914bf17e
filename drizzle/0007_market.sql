CREATE TABLE "developer" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"real_name" varchar(30) NOT NULL,
	"id_number" varchar(18) NOT NULL,
	"mobile" varchar(11) NOT NULL,
	"email" varchar(100) NOT NULL,
	"province" varchar(12) NOT NULL,
	"city" varchar(12) DEFAULT '' NOT NULL,
	"intro" text DEFAULT '' NOT NULL,
	"status" varchar(10) DEFAULT 'pending' NOT NULL,
	"reason" varchar(255) DEFAULT '' NOT NULL,
	"reviewer_id" integer DEFAULT 0 NOT NULL,
	"review_time" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	"update_time" bigint NOT NULL,
	CONSTRAINT "developer_status_chk" CHECK ("developer"."status" in ('pending','approved','rejected'))
);
--> statement-breakpoint
CREATE TABLE "developer_earning" (
	"id" serial PRIMARY KEY NOT NULL,
	"developer_id" integer NOT NULL,
	"order_id" integer NOT NULL,
	"kind" varchar(5) NOT NULL,
	"gross" integer NOT NULL,
	"commission" integer NOT NULL,
	"amount" integer NOT NULL,
	"create_time" bigint NOT NULL,
	CONSTRAINT "developer_earning_kind_chk" CHECK ("developer_earning"."kind" in ('money','score'))
);
--> statement-breakpoint
CREATE TABLE "developer_withdrawal" (
	"id" serial PRIMARY KEY NOT NULL,
	"developer_id" integer NOT NULL,
	"amount" integer NOT NULL,
	"account" varchar(120) NOT NULL,
	"status" varchar(10) DEFAULT 'pending' NOT NULL,
	"remark" varchar(255) DEFAULT '' NOT NULL,
	"create_time" bigint NOT NULL,
	"update_time" bigint NOT NULL,
	CONSTRAINT "developer_withdrawal_status_chk" CHECK ("developer_withdrawal"."status" in ('pending','paid','rejected')),
	CONSTRAINT "developer_withdrawal_amount_chk" CHECK ("developer_withdrawal"."amount" > 0)
);
--> statement-breakpoint
CREATE TABLE "module" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" varchar(40) NOT NULL,
	"developer_id" integer NOT NULL,
	"name" varchar(60) NOT NULL,
	"summary" varchar(150) DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"description_html" text DEFAULT '' NOT NULL,
	"cover" varchar(255) DEFAULT '' NOT NULL,
	"screenshots" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"category" varchar(20) NOT NULL,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"price" integer DEFAULT 0 NOT NULL,
	"score_price" integer DEFAULT 0 NOT NULL,
	"site_module" smallint DEFAULT 0 NOT NULL,
	"status" varchar(10) DEFAULT 'draft' NOT NULL,
	"review_reason" varchar(255) DEFAULT '' NOT NULL,
	"latest_version" varchar(20) DEFAULT '' NOT NULL,
	"downloads" integer DEFAULT 0 NOT NULL,
	"purchases" integer DEFAULT 0 NOT NULL,
	"rating_sum" integer DEFAULT 0 NOT NULL,
	"rating_count" integer DEFAULT 0 NOT NULL,
	"rating" double precision DEFAULT 0 NOT NULL,
	"search_vector" "tsvector" DEFAULT ''::tsvector NOT NULL,
	"title_vector" "tsvector" DEFAULT ''::tsvector NOT NULL,
	"publish_time" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	"update_time" bigint NOT NULL,
	CONSTRAINT "module_uid_unique" UNIQUE("uid"),
	CONSTRAINT "module_status_chk" CHECK ("module"."status" in ('draft','review','published','delisted')),
	CONSTRAINT "module_price_chk" CHECK ("module"."price" >= 0 and "module"."score_price" >= 0)
);
--> statement-breakpoint
CREATE TABLE "module_download" (
	"id" serial PRIMARY KEY NOT NULL,
	"module_id" integer NOT NULL,
	"version_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "module_order" (
	"id" serial PRIMARY KEY NOT NULL,
	"order_no" varchar(24) NOT NULL,
	"user_id" integer NOT NULL,
	"module_id" integer NOT NULL,
	"developer_id" integer NOT NULL,
	"pay_type" varchar(10) NOT NULL,
	"amount" integer DEFAULT 0 NOT NULL,
	"commission" integer DEFAULT 0 NOT NULL,
	"status" varchar(10) DEFAULT 'unpaid' NOT NULL,
	"nonce" varchar(40) DEFAULT '' NOT NULL,
	"updates_until" bigint DEFAULT 0 NOT NULL,
	"pay_time" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	CONSTRAINT "module_order_order_no_unique" UNIQUE("order_no"),
	CONSTRAINT "module_order_status_chk" CHECK ("module_order"."status" in ('unpaid','paid','refunded')),
	CONSTRAINT "module_order_pay_chk" CHECK ("module_order"."pay_type" in ('balance','score','free'))
);
--> statement-breakpoint
CREATE TABLE "module_review" (
	"id" serial PRIMARY KEY NOT NULL,
	"module_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"rating" smallint NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"reply" text DEFAULT '' NOT NULL,
	"reply_time" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	"update_time" bigint NOT NULL,
	CONSTRAINT "module_review_rating_chk" CHECK ("module_review"."rating" between 1 and 5)
);
--> statement-breakpoint
CREATE TABLE "module_version" (
	"id" serial PRIMARY KEY NOT NULL,
	"module_id" integer NOT NULL,
	"version" varchar(20) NOT NULL,
	"changelog" text DEFAULT '' NOT NULL,
	"package_path" varchar(255) DEFAULT '' NOT NULL,
	"package_name" varchar(120) DEFAULT '' NOT NULL,
	"package_size" bigint DEFAULT 0 NOT NULL,
	"sha1" varchar(40) DEFAULT '' NOT NULL,
	"min_atrium" varchar(20) DEFAULT '' NOT NULL,
	"status" varchar(10) DEFAULT 'review' NOT NULL,
	"review_reason" varchar(255) DEFAULT '' NOT NULL,
	"publish_time" bigint DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL,
	CONSTRAINT "module_version_status_chk" CHECK ("module_version"."status" in ('review','published','rejected'))
);
--> statement-breakpoint
ALTER TABLE "invoice" ADD COLUMN "order_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "developer_status_idx" ON "developer" USING btree ("status","update_time");--> statement-breakpoint
CREATE UNIQUE INDEX "developer_earning_order_uq" ON "developer_earning" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "developer_earning_dev_idx" ON "developer_earning" USING btree ("developer_id","create_time");--> statement-breakpoint
CREATE INDEX "developer_withdrawal_dev_idx" ON "developer_withdrawal" USING btree ("developer_id","id");--> statement-breakpoint
CREATE INDEX "module_developer_idx" ON "module" USING btree ("developer_id","id");--> statement-breakpoint
CREATE INDEX "module_newest_idx" ON "module" USING btree ("status","publish_time");--> statement-breakpoint
CREATE INDEX "module_popular_idx" ON "module" USING btree ("status","downloads");--> statement-breakpoint
CREATE INDEX "module_rating_idx" ON "module" USING btree ("status","rating");--> statement-breakpoint
CREATE INDEX "module_price_idx" ON "module" USING btree ("status","price");--> statement-breakpoint
CREATE INDEX "module_category_idx" ON "module" USING btree ("status","category","publish_time");--> statement-breakpoint
CREATE INDEX "module_tags_idx" ON "module" USING gin ("tags");--> statement-breakpoint
CREATE INDEX "module_search_idx" ON "module" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "module_download_user_idx" ON "module_download" USING btree ("user_id","module_id");--> statement-breakpoint
CREATE UNIQUE INDEX "module_order_owned_uq" ON "module_order" USING btree ("user_id","module_id") WHERE "module_order"."status" = 'paid';--> statement-breakpoint
CREATE INDEX "module_order_user_idx" ON "module_order" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "module_order_developer_idx" ON "module_order" USING btree ("developer_id","id");--> statement-breakpoint
CREATE INDEX "module_order_nonce_idx" ON "module_order" USING btree ("user_id","nonce");--> statement-breakpoint
CREATE UNIQUE INDEX "module_review_uq" ON "module_review" USING btree ("module_id","user_id");--> statement-breakpoint
CREATE INDEX "module_review_module_idx" ON "module_review" USING btree ("module_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "module_version_uq" ON "module_version" USING btree ("module_id","version");