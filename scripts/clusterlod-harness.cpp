// meshoptimizer's clusterlod.h driven from C++ alone, for scripts/bench-clusterlod.sh: the
// same bumpy field as `pipeline::cluster_lod::field::bumpy_field`, the same configuration
// and attribute weights as assetc's stage, timed in CPU seconds of this process.
//
//   harness N MODE [LEVEL]
//
// MODE `bare`:  clodBuild with a callback that keeps only the groups (for the hierarchy),
//               then clodBuildHierarchy: the library's own cost.
// MODE `stage`: also what assetc's stage does per cluster in C++: local indices
//               (clodLocalIndices), culling bounds and cone (meshopt_computeMeshletBounds),
//               the topology kept in growing arrays.
// LEVEL: clodConfig::optimize_clusters_level (default: clodDefaultConfig's).
//
// Prints one line: triangles, groups, clusters, stored triangles, CPU s, M triangles per
// CPU s, peak RSS.

#include "meshoptimizer.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define CLUSTERLOD_IMPLEMENTATION
#include "clusterlod.h"

#include <vector>

static float height(float x, float z)
{
	const float amplitude = 0.04f, waves = 9.0f;
	return amplitude * (sinf(x * waves) * cosf(z * waves * 0.7f) + 0.5f * sinf(x * waves * 2.3f + z * 3.1f));
}

static double cpuSeconds()
{
	timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

struct Kept
{
	bool stage;
	std::vector<clodGroup> groups;
	std::vector<unsigned int> vertices;
	std::vector<unsigned char> triangles;
	std::vector<meshopt_Bounds> bounds;
	size_t clusters, stored;
	const float* positions;
	size_t vertex_count;
};

static int output(void* context, clodGroup group, const clodCluster* clusters, size_t cluster_count)
{
	Kept& k = *static_cast<Kept*>(context);
	k.groups.push_back(group);
	for (size_t i = 0; i < cluster_count; ++i)
	{
		const clodCluster& c = clusters[i];
		k.clusters++;
		k.stored += c.index_count / 3;
		if (!k.stage)
			continue;
		unsigned int local_vertices[128 * 3];
		unsigned char local_triangles[128 * 3];
		size_t n = clodLocalIndices(local_vertices, local_triangles, c.indices, c.index_count);
		k.bounds.push_back(meshopt_computeMeshletBounds(local_vertices, local_triangles, c.index_count / 3, k.positions, k.vertex_count, sizeof(float) * 4));
		k.vertices.insert(k.vertices.end(), local_vertices, local_vertices + n);
		k.triangles.insert(k.triangles.end(), local_triangles, local_triangles + c.index_count);
	}
	return int(k.groups.size() - 1);
}

int main(int argc, char** argv)
{
	size_t n = argc > 1 ? size_t(atoi(argv[1])) : 708;
	bool stage = argc > 2 && strcmp(argv[2], "stage") == 0;
	size_t row = n + 1;

	std::vector<float> positions, attributes;
	positions.reserve(row * row * 4);
	attributes.reserve(row * row * 5);
	const float h = 1e-3f;
	for (size_t j = 0; j < row; ++j)
		for (size_t i = 0; i < row; ++i)
		{
			float x = float(i) / float(n), z = float(j) / float(n);
			float dx = (height(x + h, z) - height(x - h, z)) / (2 * h);
			float dz = (height(x, z + h) - height(x, z - h)) / (2 * h);
			float len = sqrtf(dx * dx + 1 + dz * dz);
			float p[4] = {x, height(x, z), z, 0};
			float a[5] = {-dx / len, 1 / len, -dz / len, x, z};
			positions.insert(positions.end(), p, p + 4);
			attributes.insert(attributes.end(), a, a + 5);
		}
	std::vector<unsigned int> indices;
	indices.reserve(n * n * 6);
	for (size_t j = 0; j < n; ++j)
		for (size_t i = 0; i < n; ++i)
		{
			unsigned int a = unsigned(j * row + i), b = a + 1, c = a + unsigned(row), d = c + 1;
			unsigned int quad[6] = {a, c, b, b, c, d};
			indices.insert(indices.end(), quad, quad + 6);
		}

	// Normals at 0.5 and UVs at 1.0 with their seams protected: assetc's stage.
	const float weights[5] = {0.5f, 0.5f, 0.5f, 1.0f, 1.0f};
	clodMesh mesh = {};
	mesh.indices = indices.data();
	mesh.index_count = indices.size();
	mesh.vertex_count = row * row;
	mesh.vertex_positions = positions.data();
	mesh.vertex_positions_stride = sizeof(float) * 4;
	mesh.vertex_attributes = attributes.data();
	mesh.vertex_attributes_stride = sizeof(float) * 5;
	mesh.attribute_weights = weights;
	mesh.attribute_count = 5;
	mesh.attribute_protect_mask = 0b11000;

	clodConfig config = clodDefaultConfig(128);
	if (argc > 3)
		config.optimize_clusters_level = atoi(argv[3]);

	Kept kept = {};
	kept.stage = stage;
	kept.positions = positions.data();
	kept.vertex_count = row * row;

	double start = cpuSeconds();
	clodBuild(config, mesh, &kept, output);
	int levels = 0;
	for (const clodGroup& g : kept.groups)
		levels = g.depth + 1 > levels ? g.depth + 1 : levels;
	std::vector<clodNode> nodes(clodBuildHierarchyBound(kept.groups.size(), 8, levels));
	size_t node_count = clodBuildHierarchy(nodes.data(), kept.groups.data(), kept.groups.size(), 8, levels);
	double cpu = cpuSeconds() - start;

	rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	size_t triangles = indices.size() / 3;
	printf("%s level %d: %zu triangles, %zu groups, %zu clusters, %zu nodes, %zu stored triangles; %.3f s CPU = %.3f M triangles per CPU s; peak RSS %.1f MB\n",
	    stage ? "stage" : "bare", config.optimize_clusters_level, triangles, kept.groups.size(), kept.clusters, node_count, kept.stored,
	    cpu, double(triangles) / cpu * 1e-6, double(usage.ru_maxrss) / 1024.0);
	return 0;
}
