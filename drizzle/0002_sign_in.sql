CREATE TABLE "user_sign_in" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"day" varchar(10) NOT NULL,
	"streak" integer DEFAULT 1 NOT NULL,
	"score" integer DEFAULT 0 NOT NULL,
	"create_time" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "user_sign_in_day_uq" ON "user_sign_in" USING btree ("user_id","day");