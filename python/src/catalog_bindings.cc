// floe._floe.Catalog: an Iceberg catalog, opened as the floe command resolves one, its
// namespaces and tables (loading and creating a table makes a Table).
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings_internal.h"
#include "floe/cli/catalog_resolution.h"
#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/iceberg/table/table.h"
#include "floe/lakehouse/table_ref.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"

using namespace nb::literals;

namespace floe::python {
namespace {

iceberg::TableIdentifier ToIdentifier(const std::vector<std::string>& ns,
                                      const std::string& name) {
  return iceberg::TableIdentifier{ns, name};
}

// The table a name resolves to in `catalog`, of either format (lakehouse's one way).
TableRef Resolve(const PyCatalog& catalog, const std::vector<std::string>& ns,
                 const std::string& name) {
  return Unwrap(ResolveCatalogTable(catalog.catalog(), ToIdentifier(ns, name)));
}

PyTable* LoadTable(PyCatalog& catalog, const std::vector<std::string>& ns,
                   const std::string& name) {
  auto table = RunReleased([&] {
    const TableRef ref = Resolve(catalog, ns, name);
    return Unwrap(LoadIcebergTable(
        [&]() -> arrow::Result<std::shared_ptr<iceberg::Catalog>> {
          return catalog.catalog();
        },
        ref));
  });
  return new PyTable(std::move(table));
}

// The format of the table a name resolves to: "iceberg" or "delta".
std::string ResolveName(PyCatalog& catalog, const std::vector<std::string>& ns,
                        const std::string& name) {
  const TableRef ref = RunReleased([&] { return Resolve(catalog, ns, name); });
  return std::string(TableFormatName(ref.format));
}

PyTable* CreateTable(PyCatalog& catalog, const std::vector<std::string>& ns,
                     const std::string& name, const std::string& schema_text,
                     nb::handle arrow_schema, const std::string& partition_by,
                     const std::string& sort_by,
                     const std::map<std::string, std::string>& properties,
                     const std::string& location) {
  SchemaPtr schema;
  if (!arrow_schema.is_none()) {
    schema = Unwrap(FromArrowSchemaAssigningIds(*ImportSchema(arrow_schema)));
  } else {
    schema = Unwrap(iceberg::ParseSchemaText(schema_text));
  }
  iceberg::CreateTableOptions options;
  options.schema = schema;
  options.spec = Unwrap(iceberg::ParsePartitionBy(partition_by, *schema));
  options.sort_order = Unwrap(iceberg::ParseSortBy(sort_by, *schema));
  options.properties = properties;
  options.location = location;
  auto table = RunReleased([&] {
    auto created =
        iceberg::Table::Create(catalog.catalog(), ToIdentifier(ns, name), options);
    if (KindOf(created.status()) == ErrorKind::kAlreadyExists)
      Throw(created.status(), "TableAlreadyExists");
    return Unwrap(std::move(created));
  });
  return new PyTable(std::move(table));
}

}  // namespace

PyCatalog::PyCatalog(const std::string& uri, const std::string& warehouse,
                     const std::string& name,
                     const std::map<std::string, std::string>& properties) {
  cli::CatalogFlags flags{uri, warehouse, name, {}};
  for (const auto& [key, value] : properties)
    flags.properties.push_back(key + "=" + value);
  catalog_ = RunReleased([&]() -> std::shared_ptr<iceberg::Catalog> {
    iceberg::CatalogOptions options =
        Unwrap(cli::ResolveCatalog(flags, cli::CatalogAccess::kOpen));
    return std::shared_ptr<iceberg::Catalog>(Unwrap(iceberg::Catalog::Open(options)));
  });
}

std::vector<std::vector<std::string>> PyCatalog::ListNamespaces(
    const std::vector<std::string>& parent) {
  return RunReleased([&] { return Unwrap(catalog_->ListNamespaces(parent)); });
}

void PyCatalog::CreateNamespace(const std::vector<std::string>& ns,
                                const std::map<std::string, std::string>& properties) {
  RunReleased([&] {
    auto status = catalog_->CreateNamespace(ns, properties);
    if (KindOf(status) == ErrorKind::kAlreadyExists)
      Throw(status, "NamespaceAlreadyExists");
    Check(status);
    return 0;
  });
}

bool PyCatalog::NamespaceExists(const std::vector<std::string>& ns) {
  return RunReleased([&] { return Unwrap(catalog_->NamespaceExists(ns)); });
}

std::map<std::string, std::string> PyCatalog::NamespaceProperties(
    const std::vector<std::string>& ns) {
  return RunReleased([&] { return Unwrap(catalog_->LoadNamespaceProperties(ns)); });
}

void PyCatalog::UpdateNamespaceProperties(
    const std::vector<std::string>& ns, const std::vector<std::string>& removals,
    const std::map<std::string, std::string>& updates) {
  RunReleased([&] {
    Check(catalog_->UpdateNamespaceProperties(ns, updates, removals));
    return 0;
  });
}

void PyCatalog::DropNamespace(const std::vector<std::string>& ns) {
  RunReleased([&] {
    Check(DropCatalogNamespace(catalog_, ns));
    return 0;
  });
}

std::vector<std::pair<std::vector<std::string>, std::string>> PyCatalog::ListTables(
    const std::vector<std::string>& ns) {
  auto tables = RunReleased([&] { return Unwrap(ListCatalogTables(catalog_, ns)); });
  std::vector<std::pair<std::vector<std::string>, std::string>> out;
  for (const auto& table : tables) out.emplace_back(table.id.ns, table.id.name);
  return out;
}

bool PyCatalog::TableExists(const std::vector<std::string>& ns, const std::string& name) {
  return RunReleased([&] {
    if (Resolve(*this, ns, name).is_delta()) return true;
    auto loaded = catalog_->LoadTable(ToIdentifier(ns, name));
    if (KindOf(loaded.status()) == ErrorKind::kNoSuchTable ||
        KindOf(loaded.status()) == ErrorKind::kNoSuchNamespace)
      return false;
    Check(loaded.status());
    return true;
  });
}

void PyCatalog::DropTable(const std::vector<std::string>& ns, const std::string& name) {
  RunReleased([&] {
    Check(DropCatalogTable(catalog_, Resolve(*this, ns, name)));
    return 0;
  });
}

void PyCatalog::RenameTable(const std::vector<std::string>& from_ns,
                            const std::string& from,
                            const std::vector<std::string>& to_ns,
                            const std::string& to) {
  RunReleased([&] {
    auto status = RenameCatalogTable(catalog_, Resolve(*this, from_ns, from),
                                     ToIdentifier(to_ns, to));
    if (KindOf(status) == ErrorKind::kAlreadyExists) Throw(status, "TableAlreadyExists");
    Check(status);
    return 0;
  });
}

void BindCatalog(nb::module_& m) {
  nb::class_<PyCatalog>(m, "Catalog")
      .def(nb::init<const std::string&, const std::string&, const std::string&,
                    const std::map<std::string, std::string>&>(),
           "uri"_a, "warehouse"_a, "name"_a, "properties"_a)
      .def_prop_ro("name", &PyCatalog::name)
      .def("list_namespaces", &PyCatalog::ListNamespaces, "parent"_a)
      .def("create_namespace", &PyCatalog::CreateNamespace, "namespace"_a, "properties"_a)
      .def("namespace_exists", &PyCatalog::NamespaceExists, "namespace"_a)
      .def("namespace_properties", &PyCatalog::NamespaceProperties, "namespace"_a)
      .def("update_namespace_properties", &PyCatalog::UpdateNamespaceProperties,
           "namespace"_a, "removals"_a, "updates"_a)
      .def("drop_namespace", &PyCatalog::DropNamespace, "namespace"_a)
      .def("list_tables", &PyCatalog::ListTables, "namespace"_a)
      .def("table_exists", &PyCatalog::TableExists, "namespace"_a, "name"_a)
      .def("drop_table", &PyCatalog::DropTable, "namespace"_a, "name"_a)
      .def("rename_table", &PyCatalog::RenameTable, "from_namespace"_a, "from_name"_a,
           "to_namespace"_a, "to_name"_a)
      .def("load_table", &LoadTable, "namespace"_a, "name"_a)
      .def("resolve_table", &ResolveName, "namespace"_a, "name"_a)
      .def("create_table", &CreateTable, "namespace"_a, "name"_a, "schema_text"_a,
           "arrow_schema"_a.none(), "partition_by"_a, "sort_by"_a, "properties"_a,
           "location"_a);
}

}  // namespace floe::python
