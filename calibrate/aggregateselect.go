package calibrate

import (
	"maps"
	"math"
	"slices"
)

// SettingsScore is one FitSettings judged on the corpus: the mean absolute
// relative error per metric in sample, leave-one-deployment-out and
// leave-one-family-out, and the median signed error in sample.
type SettingsScore struct {
	Settings                     FitSettings
	InSample, CVDeployment       map[string]float64
	CVFamily, Bias, CVFamilyBias map[string]float64
}

// ScoreSettings refits the groups with settings s on their rows as they
// are (the linear models of the points around the coefficients they were
// traced at: no new simulation) and scores the fit in sample and by the
// cross-validations that hold out a deployment and a model family
// (family names an observation's), each prediction the points' linear
// model. It is the hyperparameter selection's yardstick: a few seconds a
// setting, where a fit with new simulations takes minutes. The groups'
// coefficients are left as they were.
func (f *AggregateFit) ScoreSettings(groups []*Group, fallback *Group, s FitSettings, family func(obs int) string) (SettingsScore, error) {
	saved, savedLinear := f.Settings, f.LinearOnly
	xs := make([][]float64, len(groups)+1)
	for k, g := range append(slices.Clone(groups), fallback) {
		xs[k] = slices.Clone(g.x)
	}
	defer func() {
		f.Settings, f.LinearOnly = saved, savedLinear
		for k, g := range append(slices.Clone(groups), fallback) {
			g.x = xs[k]
		}
	}()
	f.Settings, f.LinearOnly = s, true
	out := SettingsScore{Settings: s}
	var err error
	if fallback.x, err = f.solvePooled(fallback.rows, fallback); err != nil {
		return out, err
	}
	inSample := make([]map[string]Pair, len(f.obs))
	for _, g := range groups {
		if g.x, err = f.solveGroup(g.rows, g, fallback.x); err != nil {
			return out, err
		}
		for _, r := range g.rows {
			if inSample[r.obs] == nil {
				inSample[r.obs] = map[string]Pair{}
			}
			inSample[r.obs][r.metric] = r.at(g.x)
		}
	}
	out.InSample, out.Bias = pairErrors(inSample)
	dep, err := f.CrossValidateBy(groups, fallback, func(i int) string { return f.obs[i].Deployment })
	if err != nil {
		return out, err
	}
	out.CVDeployment, _ = pairErrors(dep)
	fam, err := f.CrossValidateBy(groups, fallback, family)
	if err != nil {
		return out, err
	}
	out.CVFamily, out.CVFamilyBias = pairErrors(fam)
	return out, nil
}

// pairErrors is the mean absolute and the median signed relative error
// per metric of the pairs.
func pairErrors(pairs []map[string]Pair) (mape, bias map[string]float64) {
	errs := map[string][]float64{}
	for _, ps := range pairs {
		for m, p := range ps {
			errs[m] = append(errs[m], p.Err())
		}
	}
	mape, bias = map[string]float64{}, map[string]float64{}
	for _, m := range slices.Sorted(maps.Keys(errs)) {
		e := errs[m]
		for _, v := range e {
			mape[m] += math.Abs(v) / float64(len(e))
		}
		slices.Sort(e)
		bias[m] = (e[(len(e)-1)/2] + e[len(e)/2]) / 2
	}
	return mape, bias
}
