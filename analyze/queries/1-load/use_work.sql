-- use_work: what the analysis creates goes to the database attach_work made.
USE work;
