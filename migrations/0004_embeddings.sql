-- The semantic half of hybrid retrieval: each chunk's embedding, packed float32 on its row,
-- and which model made them. Never edit this file once released; add a new numbered migration.

ALTER TABLE chunks ADD COLUMN vector BLOB;  -- NULL until embedded (or in bm25-only indexes)

-- One row at most: the model every stored vector came from, and its width as measured from
-- the model itself. A different model means every vector is re-made.
CREATE TABLE embedding_model (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    name         TEXT NOT NULL,
    dimensions   INTEGER NOT NULL CHECK (dimensions > 0),
    recorded_at  TEXT NOT NULL
);

-- Bumped whenever a chunk or its vector comes or goes, so a retriever holding the vectors in
-- memory knows, with one cheap read, when to load them again.
CREATE TABLE chunk_generation (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    generation  INTEGER NOT NULL
);
INSERT INTO chunk_generation (id, generation) VALUES (1, 0);

CREATE TRIGGER chunks_generation_insert AFTER INSERT ON chunks BEGIN
    UPDATE chunk_generation SET generation = generation + 1 WHERE id = 1;
END;

CREATE TRIGGER chunks_generation_delete AFTER DELETE ON chunks BEGIN
    UPDATE chunk_generation SET generation = generation + 1 WHERE id = 1;
END;

CREATE TRIGGER chunks_generation_vector AFTER UPDATE OF vector ON chunks BEGIN
    UPDATE chunk_generation SET generation = generation + 1 WHERE id = 1;
END;
