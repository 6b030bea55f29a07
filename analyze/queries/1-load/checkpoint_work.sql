-- checkpoint_work: stores the tables of a large run's database compressed
-- (attach_work), once the spans table is loaded: it is most of the data, and
-- the later tables are made from it.
CHECKPOINT work;
