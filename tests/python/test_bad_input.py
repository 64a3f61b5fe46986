"""Bad input: the documented exception, and the table and its storage unchanged."""

import pyarrow as pa
import pytest
from conftest import files_under

import floe

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])


@pytest.fixture
def table(catalog):
    catalog.create_namespace("db")
    table = catalog.create_table("db.t", SCHEMA)
    table.append(pa.table({"id": [1, 2], "name": ["a", "b"]}, schema=SCHEMA))
    return table


def unchanged(table, warehouse):
    class Check:
        def __enter__(self):
            self.location = table.refresh().metadata_location
            self.files = files_under(warehouse)

        def __exit__(self, *exc):
            assert table.refresh().metadata_location == self.location
            assert files_under(warehouse) == self.files
            return False

    return Check()


def test_a_stream_whose_schema_does_not_match(table, warehouse):
    with unchanged(table, warehouse):
        with pytest.raises(floe.InvalidInputError, match="unknown"):
            table.append(pa.table({"id": [3], "unknown": [1.5]}))
        # A required column missing.
        with pytest.raises(floe.InvalidInputError, match="id"):
            table.append(pa.table({"name": ["x"]}))
        # A null in a required column.
        with pytest.raises(floe.InvalidInputError, match="id"):
            table.append(pa.table({"id": pa.array([None], pa.int64()), "name": ["x"]}))
        # A type that cannot be cast safely.
        with pytest.raises(floe.InvalidInputError):
            table.append(pa.table({"id": ["not a number"], "name": ["x"]}))


def test_a_failing_stream_midway_leaves_nothing(table, warehouse):
    def batches():
        yield pa.record_batch({"id": [10, 11], "name": ["x", "y"]}, schema=SCHEMA)
        raise RuntimeError("the source broke")

    reader = pa.RecordBatchReader.from_batches(SCHEMA, batches())
    with unchanged(table, warehouse):
        with pytest.raises(floe.FloeError, match="the source broke"):
            table.append(reader)


def test_a_closed_or_consumed_reader(table, warehouse, tmp_path):
    # A reader over a file that was closed: the read fails, nothing is written.
    path = tmp_path / "rows.arrows"
    with pa.OSFile(str(path), "wb") as sink:
        with pa.ipc.new_stream(sink, SCHEMA) as writer:
            writer.write_batch(pa.record_batch({"id": [7], "name": ["g"]}, schema=SCHEMA))
    source = pa.OSFile(str(path))
    reader = pa.ipc.open_stream(source)
    source.close()
    with unchanged(table, warehouse):
        with pytest.raises(floe.FloeError, match="closed file"):
            table.append(reader)
    # A reader floe already read gives no rows: refused rather than an empty append.
    reader = pa.RecordBatchReader.from_batches(
        SCHEMA, iter([pa.record_batch({"id": [5], "name": ["e"]}, schema=SCHEMA)]))
    table.append(reader)
    with unchanged(table, warehouse):
        with pytest.raises(ValueError, match="already read"):
            table.append(reader)


def test_wrong_argument_types(table, warehouse):
    with unchanged(table, warehouse):
        with pytest.raises(TypeError):
            table.append({"id": [1]})
        with pytest.raises(TypeError):
            table.append(pa.table({"id": [1], "name": ["a"]}), threads="2")
        with pytest.raises(ValueError):
            table.append(pa.table({"id": [1], "name": ["a"]}), threads=0)
        with pytest.raises(TypeError):
            table.append(pa.table({"id": [1], "name": ["a"]}), options=5)
        with pytest.raises(TypeError):
            table.scan(columns="id")
        with pytest.raises(floe.InvalidInputError):
            table.scan(columns=["nope"])
        with pytest.raises(floe.InvalidInputError):
            table.delete("id = = 1")
        with pytest.raises(TypeError):
            table.delete(42)


def test_unknown_names(catalog, table):
    with pytest.raises(floe.NoSuchTableError):
        catalog.load_table("db.missing")
    with pytest.raises(floe.NoSuchNamespaceError):
        catalog.list_tables("nowhere")
    with pytest.raises(floe.NoSuchNamespaceError):
        catalog.create_table("nowhere.t", SCHEMA)
    with pytest.raises(floe.TableAlreadyExistsError):
        catalog.create_table("db.t", SCHEMA)
    with pytest.raises(floe.NamespaceAlreadyExistsError):
        catalog.create_namespace("db")
    with pytest.raises(floe.NamespaceNotEmptyError):
        catalog.drop_namespace("db")
    with pytest.raises(ValueError):
        catalog.load_table("no_namespace")
    assert not catalog.table_exists("db.missing") and catalog.table_exists("db.t")
    for error in (floe.NoSuchTableError, floe.WriteDeclinedError, floe.CommitFailedException,
                  floe.CommitStateUnknownException, floe.ValidationException):
        assert issubclass(error, floe.FloeError)


def test_catalog_credentials_never_reach_errors(tmp_path):
    with pytest.raises(floe.FloeError) as raised:
        floe.Catalog(uri="postgresql://user:s3cr3t-pw@127.0.0.1:1/db")
    assert "s3cr3t-pw" not in str(raised.value)


def test_namespaces_and_table_lifecycle(catalog):
    catalog.create_namespace("a", {"owner": "me"})
    catalog.create_namespace(("a", "b"))
    assert ("a",) in catalog.list_namespaces()
    assert catalog.list_namespaces("a") == [("a", "b")]
    assert catalog.load_namespace_properties("a")["owner"] == "me"
    catalog.update_namespace_properties("a", removals=["owner"], updates={"team": "x"})
    props = catalog.load_namespace_properties("a")
    assert "owner" not in props and props["team"] == "x"
    catalog.create_table("a.t", SCHEMA)
    assert catalog.list_tables("a") == [("a", "t")]
    catalog.rename_table("a.t", "a.u")
    assert catalog.list_tables("a") == [("a", "u")]
    catalog.drop_table("a.u")
    catalog.drop_namespace("a.b")
    catalog.drop_namespace("a")
    assert ("a",) not in catalog.list_namespaces()
    catalog.create_namespace_if_not_exists("c")
    catalog.create_namespace_if_not_exists("c")
    loaded = floe.load_catalog(None, warehouse=str(catalog_warehouse(catalog)))
    assert ("c",) in loaded.list_namespaces()


def catalog_warehouse(catalog):
    table = catalog.create_table("c.probe", SCHEMA)
    location = table.location.removeprefix("file:")
    catalog.drop_table("c.probe")
    import pathlib

    return pathlib.Path(location).parents[1]
